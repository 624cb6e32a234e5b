// The `claims` parameter (OIDC Core section 5.5): which individual claims a
// relying party gets beyond its scopes, the one user a request may be about,
// the acr it insists on, and every form of the parameter that is refused.
import { claimsBeyondScopes, MAX_CLAIMS_PARAMETER, parseClaimsParameter } from '../../../lib/model/claims-request.js';

const SCOPES = ['openid', 'profile', 'email'];
const ACR = ['pwd', 'mfa'];
const parse = (value: unknown, scopes: readonly string[] = SCOPES) =>
  parseClaimsParameter(typeof value === 'string' ? value : JSON.stringify(value), scopes, ACR);
const claimsOf = (value: unknown, scopes?: readonly string[]) => {
  const r = parse(value, scopes);
  if (!r.ok) throw new Error(r.description);
  return r.claims;
};

describe('parseClaimsParameter: what is asked for', () => {
  it('is nothing when the parameter is absent', () => {
    expect(parseClaimsParameter(undefined, SCOPES, ACR)).toEqual({ ok: true, claims: null });
  });

  it('takes the standard claims the client could have asked for by scope, essential or not, per place', () => {
    expect(claimsOf({ id_token: { email: { essential: true }, name: null }, userinfo: { picture: null, email_verified: { essential: false } } })).toEqual({
      idToken: ['email', 'name'],
      userinfo: ['picture', 'email_verified'],
    });
  });

  it('ignores a claim beyond the client scopes, and any claim name it does not know', () => {
    expect(claimsOf({ id_token: { phone_number: null, address: null, email: null }, userinfo: { favourite_colour: null } })).toEqual({
      idToken: ['email'],
      userinfo: [],
    });
    // Nothing left that Keyflow honours: as if the parameter was not sent.
    expect(claimsOf({ id_token: { phone_number: null } })).toBeNull();
    expect(claimsOf({ id_token: { phone_number: null } }, ['openid', 'phone'])).toEqual({ idToken: ['phone_number'], userinfo: [] });
    expect(claimsOf({})).toBeNull();
    expect(claimsOf({ id_token: {}, userinfo: {}, other_member: { email: null } })).toBeNull();
  });

  it('reads sub with a value as the one user the ID token may be about', () => {
    expect(claimsOf({ id_token: { sub: { value: 'user-1' } } })).toEqual({ idToken: [], userinfo: [], sub: 'user-1' });
    // sub without a value asks for nothing: it is always there.
    expect(claimsOf({ id_token: { sub: null } })).toBeNull();
    expect(claimsOf({ id_token: { sub: { essential: true } } })).toBeNull();
  });

  it('reads acr values Keyflow produces, and whether they are essential', () => {
    expect(claimsOf({ id_token: { acr: { essential: true, values: ['mfa', 'loa3'] } } })).toEqual({
      idToken: [],
      userinfo: [],
      acr: { values: ['mfa'], essential: true },
    });
    expect(claimsOf({ id_token: { acr: { value: 'pwd' } } })?.acr).toEqual({ values: ['pwd'], essential: false });
    expect(claimsOf({ id_token: { acr: { values: ['pwd'], value: 'mfa' } } })?.acr).toEqual({ values: ['pwd', 'mfa'], essential: false });
    // Voluntary values Keyflow never produces are ignored, as is an acr with no value.
    expect(claimsOf({ id_token: { acr: { values: ['loa3'] } } })).toBeNull();
    expect(claimsOf({ id_token: { acr: null } })).toBeNull();
    expect(claimsOf({ id_token: { acr: { essential: true } } })).toBeNull();
    // acr at UserInfo is not an authentication requirement.
    expect(claimsOf({ userinfo: { acr: { essential: true, values: ['loa3'] } } })).toBeNull();
  });

  it('accepts a parameter of exactly the size limit', () => {
    const json = JSON.stringify({ id_token: { email: null }, pad: '' });
    const padded = json.replace('"pad":""', `"pad":"${'x'.repeat(MAX_CLAIMS_PARAMETER - json.length)}"`);
    expect(padded).toHaveLength(MAX_CLAIMS_PARAMETER);
    expect(claimsOf(padded)).toEqual({ idToken: ['email'], userinfo: [] });
  });
});

describe('parseClaimsParameter: refusals', () => {
  const SHAPE =
    'claims must be a JSON object whose userinfo and id_token members map claim names to null or {essential, value, values} (OIDC Core section 5.5)';
  it.each<[string, unknown, string]>([
    ['text that is not JSON', '{id_token:', 'claims must be a JSON object (OIDC Core section 5.5)'],
    ['an empty text', '', 'claims must be a JSON object (OIDC Core section 5.5)'],
    [
      'a text over the limit',
      `{"id_token":{},"pad":"${'x'.repeat(MAX_CLAIMS_PARAMETER)}"}`,
      `claims must be at most ${MAX_CLAIMS_PARAMETER} characters (OIDC Core section 5.5)`,
    ],
    ['JSON null', 'null', SHAPE],
    ['a JSON array', [{ id_token: {} }], SHAPE],
    ['a JSON string', '"email"', SHAPE],
    ['a member that is a list', { id_token: ['email'] }, SHAPE],
    ['a claim asked for with true', { id_token: { email: true } }, SHAPE],
    ['essential that is not a boolean', { id_token: { email: { essential: 'yes' } } }, SHAPE],
    ['values that are not a list', { id_token: { acr: { values: 'mfa' } } }, SHAPE],
    ['more than 20 values', { id_token: { acr: { values: Array(21).fill('mfa') } } }, SHAPE],
    ['a claim name over 100 characters', { userinfo: { ['c'.repeat(101)]: null } }, SHAPE],
    ['a sub value that is not text', { id_token: { sub: { value: 42 } } }, 'claims id_token.sub.value must be a user identifier (OIDC Core section 5.5)'],
    ['an empty sub value', { id_token: { sub: { value: '' } } }, 'claims id_token.sub.value must be a user identifier (OIDC Core section 5.5)'],
    [
      'a sub value over 255 characters',
      { id_token: { sub: { value: 'u'.repeat(256) } } },
      'claims id_token.sub.value must be a user identifier (OIDC Core section 5.5)',
    ],
    ['acr values that are not text', { id_token: { acr: { values: ['mfa', 2] } } }, 'claims id_token.acr values must be strings (OIDC Core section 5.5)'],
    [
      'an essential acr Keyflow never produces',
      { id_token: { acr: { essential: true, values: ['loa3', 'loa4'] } } },
      'claims id_token.acr asks only for values this server does not offer (pwd, mfa) (OIDC Core section 5.5)',
    ],
  ])('refuses %s', (_name, value, description) => {
    expect(parse(value)).toEqual({ ok: false, description });
  });
});

describe('claimsBeyondScopes', () => {
  it('is what the user consents to besides the scopes: the claims asked for that no granted scope releases, once each', () => {
    const claims = { idToken: ['email', 'name'] as const, userinfo: ['picture', 'email'] as const };
    expect(claimsBeyondScopes({ idToken: [...claims.idToken], userinfo: [...claims.userinfo] }, ['openid', 'email'])).toEqual(['name', 'picture']);
    expect(claimsBeyondScopes({ idToken: ['email'], userinfo: [] }, ['openid', 'email'])).toEqual([]);
    expect(claimsBeyondScopes({ idToken: ['email'], userinfo: [] }, ['openid'])).toEqual(['email']);
    expect(claimsBeyondScopes(null, ['openid'])).toEqual([]);
    expect(claimsBeyondScopes(undefined, ['openid'])).toEqual([]);
  });
});
