// Validation of authorization requests (front channel and PAR): a client or
// redirect URI that cannot be trusted gets an error page, never a redirect;
// every later refusal goes back to the redirect URI with its OAuth error, in
// the response mode the request asked for; what passes is the request as
// Keyflow stores it.
import {
  PKCE_HINT,
  buildRedirect,
  isPushedRequestReference,
  refusalTarget,
  validateAuthorizationRequest,
  validatePushedAuthorizationRequest,
  type ClientForAuthorization,
} from '../../../lib/model/authorization-request.js';
import { s256Challenge } from '../../../lib/model/pkce.js';

const CB = 'https://rp.example/cb';
const CHALLENGE = s256Challenge('v'.repeat(43));

const client: ClientForAuthorization = {
  clientId: 'rp',
  public: false,
  redirectUris: [{ type: 'equals', value: CB }],
  allowedScopes: ['openid', 'profile', 'email', 'offline_access', 'team:read', 'team:write'],
  allowedResources: ['https://api.rp.example', 'https://files.rp.example'],
  responseTypes: ['code', 'id_token token', 'id_token'],
};
const publicClient: ClientForAuthorization = { ...client, public: true };

const request = (extra: Record<string, unknown> = {}) => ({
  client_id: 'rp',
  redirect_uri: CB,
  response_type: 'code',
  scope: 'openid',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
  ...extra,
});
/** A request without the given parameters. */
const without = (...names: string[]) => Object.fromEntries(Object.entries(request()).filter(([k]) => !names.includes(k)));
const implicit = (extra: Record<string, unknown> = {}) => ({
  ...without('code_challenge', 'code_challenge_method'),
  response_type: 'id_token',
  nonce: 'n-1',
  ...extra,
});

function accepted(query: Record<string, unknown>, c: ClientForAuthorization = client) {
  const v = validateAuthorizationRequest(query, c);
  if (v.kind !== 'ok') throw new Error(`not accepted: ${JSON.stringify(v)}`);
  return v.params;
}

describe('validateAuthorizationRequest: the client and its redirect URI (never a redirect)', () => {
  it.each<[string, Record<string, unknown>, ClientForAuthorization | null, string, string]>([
    ['no client_id', without('client_id'), client, 'Unknown application', 'The request does not name a valid client_id.'],
    ['an empty client_id', request({ client_id: '' }), client, 'Unknown application', 'The request does not name a valid client_id.'],
    ['a repeated client_id', request({ client_id: ['rp', 'rp'] }), client, 'Unknown application', 'The request does not name a valid client_id.'],
    ['an unknown client', request(), null, 'Unknown application', 'No application is registered with this client_id.'],
    ['no redirect_uri', without('redirect_uri'), client, 'Invalid redirect URI', 'The request has no valid redirect_uri.'],
    ['a repeated redirect_uri', request({ redirect_uri: [CB, CB] }), client, 'Invalid redirect URI', 'The request has no valid redirect_uri.'],
    [
      'an unregistered redirect_uri',
      request({ redirect_uri: 'https://evil.example/cb' }),
      client,
      'Invalid redirect URI',
      'The redirect_uri cannot be used: redirect_uri is not registered for this client.',
    ],
    [
      'a redirect_uri with a fragment',
      request({ redirect_uri: `${CB}#x` }),
      client,
      'Invalid redirect URI',
      'The redirect_uri cannot be used: redirect_uri must not contain a fragment.',
    ],
  ])('shows an error page for %s', (_name, query, c, title, message) => {
    expect(validateAuthorizationRequest(query, c)).toEqual({ kind: 'error-page', title, message });
  });

  it('checks the client before anything else: a bad client with bad parameters is still an error page', () => {
    expect(validateAuthorizationRequest(request({ redirect_uri: 'https://evil.example/cb', response_type: 'token' }), client).kind).toBe('error-page');
  });
});

describe('validateAuthorizationRequest: what passes', () => {
  it('gives the request as stored, with the defaults of everything absent', () => {
    expect(accepted(request({ state: 's-1' }))).toEqual({
      clientId: 'rp',
      responseType: 'code',
      redirectUri: CB,
      scope: ['openid'],
      state: 's-1',
      nonce: null,
      codeChallenge: CHALLENGE,
      prompt: [],
      maxAge: null,
      acrValues: [],
      resources: [],
      responseMode: 'query',
      claims: null,
      dpopJkt: null,
    });
  });

  it('reads every optional parameter', () => {
    const params = accepted(
      request({
        scope: 'openid profile openid email',
        nonce: 'n'.repeat(512),
        prompt: 'login consent',
        max_age: '0',
        acr_values: 'mfa gold pwd',
        resource: ['https://api.rp.example', 'https://files.rp.example', 'https://api.rp.example'],
        response_mode: 'form_post',
        claims: JSON.stringify({ id_token: { email: { essential: true } } }),
      }),
    );
    expect(params).toMatchObject({
      scope: ['openid', 'profile', 'email'],
      nonce: 'n'.repeat(512),
      prompt: ['login', 'consent'],
      maxAge: 0,
      // Unknown acr values are ignored (they are voluntary).
      acrValues: ['mfa', 'pwd'],
      resources: ['https://api.rp.example', 'https://files.rp.example'],
      responseMode: 'form_post',
      claims: { idToken: ['email'], userinfo: [] },
    });
  });

  it('adds an acr asked for in claims to the acr values', () => {
    const claims = JSON.stringify({ id_token: { acr: { essential: true, values: ['mfa'] } } });
    expect(accepted(request({ acr_values: 'pwd', claims }))).toMatchObject({
      acrValues: ['pwd', 'mfa'],
      claims: { acr: { values: ['mfa'], essential: true } },
    });
  });

  it('lets a confidential client that opted out of PKCE send no challenge, and takes one it sends', () => {
    const optedOut = { ...client, requirePkce: false };
    expect(accepted(without('code_challenge', 'code_challenge_method'), optedOut).codeChallenge).toBeNull();
    expect(accepted(request(), optedOut).codeChallenge).toBe(CHALLENGE);
  });

  it('accepts the implicit response types of a client registered for them, by fragment, dropping offline_access', () => {
    expect(accepted(implicit({ scope: 'openid offline_access profile' }))).toMatchObject({
      responseType: 'id_token',
      scope: ['openid', 'profile'],
      nonce: 'n-1',
      responseMode: 'fragment',
      codeChallenge: null,
    });
    // `token id_token` is `id_token token`; a code_challenge is ignored (there is no code to protect).
    expect(accepted(implicit({ response_type: 'token id_token', code_challenge: 'junk', code_challenge_method: 'plain' }))).toMatchObject({
      responseType: 'id_token token',
      codeChallenge: null,
    });
  });

  it('takes a state of 2048 characters, and state as sent otherwise', () => {
    expect(accepted(request({ state: 's'.repeat(2048) })).state).toHaveLength(2048);
    expect(accepted(request({ state: '' })).state).toBe('');
  });
});

describe('validateAuthorizationRequest: refusals sent back to the client', () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    ['a repeated response_mode', request({ response_mode: ['query', 'query'] }), 'invalid_request', 'response_mode must appear at most once'],
    [
      'a fragment response mode for a code',
      request({ response_mode: 'fragment' }),
      'invalid_request',
      'response_mode=fragment is not supported: Keyflow answers with a code by query or form_post, or their .jwt forms',
    ],
    [
      'an unknown response mode',
      request({ response_mode: 'web_message' }),
      'invalid_request',
      'response_mode must be query, form_post, jwt, query.jwt or form_post.jwt',
    ],
    ['a repeated response_type', request({ response_type: ['code', 'code'] }), 'invalid_request', 'response_type must appear at most once'],
    ['a repeated scope', request({ scope: ['openid', 'email'] }), 'invalid_request', 'scope must appear at most once'],
    ['a repeated state', request({ state: ['a', 'b'] }), 'invalid_request', 'state must appear at most once'],
    ['a repeated nonce', request({ nonce: ['a', 'b'] }), 'invalid_request', 'nonce must appear at most once'],
    ['a repeated code_challenge', request({ code_challenge: [CHALLENGE, CHALLENGE] }), 'invalid_request', 'code_challenge must appear at most once'],
    ['a repeated prompt', request({ prompt: ['login', 'consent'] }), 'invalid_request', 'prompt must appear at most once'],
    ['a repeated max_age', request({ max_age: ['1', '2'] }), 'invalid_request', 'max_age must appear at most once'],
    ['a repeated acr_values', request({ acr_values: ['mfa', 'pwd'] }), 'invalid_request', 'acr_values must appear at most once'],
    ['a repeated claims', request({ claims: ['{}', '{}'] }), 'invalid_request', 'claims must appear at most once'],
    ['a request object left unread', request({ request: 'eyJ...' }), 'invalid_request', 'request and request_uri cannot be used here'],
    ['a request_uri left unread', request({ request_uri: 'https://rp.example/r.jwt' }), 'invalid_request', 'request and request_uri cannot be used here'],
    ['no response_type', without('response_type'), 'invalid_request', 'response_type is required'],
    ['an empty response_type', request({ response_type: '' }), 'invalid_request', 'response_type is required'],
    ['response_type token', request({ response_type: 'token' }), 'unsupported_response_type', 'response_type must be code, id_token or id_token token'],
    [
      'response_type code id_token (hybrid)',
      request({ response_type: 'code id_token' }),
      'unsupported_response_type',
      'response_type must be code, id_token or id_token token',
    ],
    ['no scope', without('scope'), 'invalid_scope', 'scope is required'],
    ['a blank scope', request({ scope: '   ' }), 'invalid_scope', 'scope is required'],
    ['an unknown scope', request({ scope: 'openid bogus' }), 'invalid_scope', 'unknown scope: bogus'],
    ['a scope the client may not ask for', request({ scope: 'openid phone' }), 'invalid_scope', 'this application may not request the scope phone'],
    ['a resource that is not absolute', request({ resource: '/api' }), 'invalid_target', 'resource must be an absolute URI'],
    [
      'a resource the client may not name',
      request({ resource: 'https://other.example' }),
      'invalid_target',
      'this application may not ask for the resource https://other.example',
    ],
    [
      'eleven resources',
      request({ resource: Array.from({ length: 11 }, (_, n) => `https://r${n}.example`) }),
      'invalid_target',
      'at most 10 resource values are accepted',
    ],
    ['the plain PKCE method', request({ code_challenge_method: 'plain' }), 'invalid_request', 'code_challenge_method must be S256 (plain is not supported)'],
    ['a method without a challenge', without('code_challenge'), 'invalid_request', 'code_challenge_method without code_challenge'],
    [
      'no challenge from a client that must use PKCE',
      without('code_challenge', 'code_challenge_method'),
      'invalid_request',
      `this application must use PKCE (code_challenge with S256). ${PKCE_HINT}`,
    ],
    ['a challenge without its method', without('code_challenge_method'), 'invalid_request', 'code_challenge_method=S256 is required with code_challenge'],
    ['a challenge that is not S256-shaped', request({ code_challenge: 'short' }), 'invalid_request', 'code_challenge must be 43 base64url characters'],
    ['an empty nonce', request({ nonce: '' }), 'invalid_request', 'nonce must be 1 to 512 characters'],
    ['a nonce over 512 characters', request({ nonce: 'n'.repeat(513) }), 'invalid_request', 'nonce must be 1 to 512 characters'],
    ['an unknown prompt', request({ prompt: 'select_account' }), 'invalid_request', 'unsupported prompt value: select_account'],
    ['prompt=none with another value', request({ prompt: 'none login' }), 'invalid_request', 'prompt=none cannot be combined with other values'],
    ['a negative max_age', request({ max_age: '-1' }), 'invalid_request', 'max_age must be a non-negative integer (seconds)'],
    ['a fractional max_age', request({ max_age: '1.5' }), 'invalid_request', 'max_age must be a non-negative integer (seconds)'],
    ['a max_age of ten digits', request({ max_age: '1234567890' }), 'invalid_request', 'max_age must be a non-negative integer (seconds)'],
    ['claims that are not JSON', request({ claims: '{id_token' }), 'invalid_request', 'claims must be a JSON object (OIDC Core section 5.5)'],
  ])('refuses %s', (_name, query, error, description) => {
    const v = validateAuthorizationRequest(query, client);
    expect(v).toEqual({ kind: 'redirect-error', clientId: 'rp', redirectUri: CB, responseMode: expect.any(String), state: null, error, description });
  });

  it('refuses a team scope the client bound itself, even one it lists: the user picks the team at consent', () => {
    const listsBound = { ...client, allowedScopes: [...client.allowedScopes, 'team:t1:read'] };
    expect(validateAuthorizationRequest(request({ scope: 'openid team:t1:read' }), listsBound)).toMatchObject({
      error: 'invalid_scope',
      description: 'ask for team:read: the user picks the team at consent',
    });
    expect(accepted(request({ scope: 'openid team:read team:write' })).scope).toEqual(['openid', 'team:read', 'team:write']);
  });

  it('refuses a public client without PKCE, even one whose settings say PKCE is not required', () => {
    const description = `public clients must use PKCE (code_challenge with S256). ${PKCE_HINT}`;
    expect(validateAuthorizationRequest(without('code_challenge', 'code_challenge_method'), publicClient)).toMatchObject({
      error: 'invalid_request',
      description,
    });
    expect(validateAuthorizationRequest(without('code_challenge', 'code_challenge_method'), { ...publicClient, requirePkce: false })).toMatchObject({
      description,
    });
  });

  it('refuses the implicit flow to a client that did not register it', () => {
    const codeOnly = { ...client, responseTypes: undefined };
    expect(validateAuthorizationRequest(implicit(), codeOnly)).toMatchObject({
      kind: 'redirect-error',
      error: 'unauthorized_client',
      description: 'this application is not registered for response_type id_token',
    });
    expect(validateAuthorizationRequest(implicit({ response_type: 'id_token token' }), { ...client, responseTypes: ['code', 'id_token'] })).toMatchObject({
      error: 'unauthorized_client',
      description: 'this application is not registered for response_type id_token token',
    });
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['without openid', implicit({ scope: 'profile' }), 'invalid_scope', 'response_type id_token needs the openid scope'],
    ['with only offline_access', implicit({ scope: 'offline_access' }), 'invalid_scope', 'scope is required'],
    ['without a nonce', implicit({ nonce: undefined }), 'invalid_request', 'nonce is required for response_type id_token'],
    [
      'by query',
      implicit({ response_mode: 'query' }),
      'invalid_request',
      'response_mode=query is not allowed for response_type id_token: its tokens must not be in a query string',
    ],
  ])('refuses an implicit request %s', (_name, query, error, description) => {
    expect(validateAuthorizationRequest(query, client)).toMatchObject({ kind: 'redirect-error', error, description });
  });

  it('sends every refusal in the mode the request asked for, and one about the mode itself the default way', () => {
    expect(validateAuthorizationRequest(request({ response_mode: 'form_post', scope: 'bogus' }), client)).toMatchObject({
      responseMode: 'form_post',
      error: 'invalid_scope',
    });
    expect(validateAuthorizationRequest(implicit({ nonce: undefined }), client)).toMatchObject({ responseMode: 'fragment' });
    expect(validateAuthorizationRequest(implicit({ response_mode: 'query' }), client)).toMatchObject({ responseMode: 'fragment' });
    expect(validateAuthorizationRequest(request({ response_mode: 'fragment' }), client)).toMatchObject({ responseMode: 'query' });
    // A response type Keyflow does not know is answered as a code would be.
    expect(validateAuthorizationRequest(request({ response_type: 'token', response_mode: 'form_post' }), client)).toMatchObject({
      error: 'unsupported_response_type',
      responseMode: 'form_post',
    });
  });

  it('reads the JWT modes (JARM), jwt resolved for the response type; a refused one answers in the JWT form of the default', () => {
    expect(accepted(request({ response_mode: 'jwt' })).responseMode).toBe('query.jwt');
    expect(accepted(request({ response_mode: 'form_post.jwt' })).responseMode).toBe('form_post.jwt');
    expect(accepted(implicit({ response_mode: 'jwt' })).responseMode).toBe('fragment.jwt');
    expect(validateAuthorizationRequest(request({ response_mode: 'jwt', scope: 'bogus', state: 'st' }), client)).toEqual({
      kind: 'redirect-error',
      clientId: 'rp',
      redirectUri: CB,
      responseMode: 'query.jwt',
      state: 'st',
      error: 'invalid_scope',
      description: 'unknown scope: bogus',
    });
    expect(validateAuthorizationRequest(request({ response_mode: 'fragment.jwt' }), client)).toMatchObject({
      error: 'invalid_request',
      responseMode: 'query.jwt',
    });
    expect(validateAuthorizationRequest(implicit({ response_mode: 'query.jwt' }), client)).toMatchObject({
      error: 'invalid_request',
      responseMode: 'fragment.jwt',
    });
  });

  it('sends the state back with a refusal, cut to 2048 characters', () => {
    expect(validateAuthorizationRequest(request({ state: 'st', scope: 'bogus' }), client)).toMatchObject({ state: 'st' });
    const long = validateAuthorizationRequest(request({ state: 's'.repeat(3000) }), client);
    expect(long).toMatchObject({ error: 'invalid_request', description: 'state must be at most 2048 characters' });
    expect((long as { state: string }).state).toHaveLength(2048);
  });
});

describe('validatePushedAuthorizationRequest (RFC 9126)', () => {
  const pushed = (extra: Record<string, unknown> = {}) => ({ ...without('client_id'), ...extra });

  it('accepts what the authorization endpoint accepts, with or without client_id', () => {
    const v = validatePushedAuthorizationRequest(pushed({ state: 's' }), client);
    expect(v).toEqual({ kind: 'ok', params: accepted(request({ state: 's' })) });
    expect(validatePushedAuthorizationRequest({ ...pushed(), client_id: 'rp' }, client).kind).toBe('ok');
  });

  it('takes the JWT modes (JARM) as the authorization endpoint does', () => {
    expect(validatePushedAuthorizationRequest(pushed({ response_mode: 'jwt' }), client)).toMatchObject({ kind: 'ok', params: { responseMode: 'query.jwt' } });
    expect(validatePushedAuthorizationRequest(pushed({ response_mode: 'fragment.jwt' }), client)).toEqual({
      kind: 'error',
      error: 'invalid_request',
      description: expect.stringContaining('fragment.jwt'),
    });
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['a repeated client_id', { client_id: ['rp', 'rp'] }, 'invalid_request', 'client_id must appear at most once'],
    ['another client_id', { client_id: 'other' }, 'invalid_request', 'client_id does not match the authenticated client'],
    ['a request_uri', { request_uri: 'urn:ietf:params:oauth:request_uri:abc' }, 'invalid_request', 'request_uri must not be pushed (RFC 9126 section 2.1)'],
    ['no redirect_uri', { redirect_uri: undefined }, 'invalid_request', 'redirect_uri is required'],
    [
      'an unregistered redirect_uri',
      { redirect_uri: 'https://evil.example/cb' },
      'invalid_request',
      'the redirect_uri cannot be used: redirect_uri is not registered for this client',
    ],
    ['an unknown scope', { scope: 'openid bogus' }, 'invalid_scope', 'unknown scope: bogus'],
    ['a request object left unread', { request: 'eyJ...' }, 'invalid_request', 'request and request_uri cannot be used here'],
  ])('answers %s with a JSON error', (_name, extra, error, description) => {
    expect(validatePushedAuthorizationRequest(pushed(extra), client)).toEqual({ kind: 'error', error, description });
  });
});

describe('refusalTarget', () => {
  it('sends a refusal to a registered redirect URI, in its mode and with its state', () => {
    expect(refusalTarget({ redirect_uri: CB, state: 's', response_mode: 'form_post' }, client)).toEqual({
      clientId: 'rp',
      redirectUri: CB,
      responseMode: 'form_post',
      state: 's',
    });
    expect(refusalTarget({ redirect_uri: CB }, client)).toEqual({ clientId: 'rp', redirectUri: CB, responseMode: 'query', state: null });
    expect(refusalTarget({ redirect_uri: CB, response_type: 'id_token' }, client)).toMatchObject({ responseMode: 'fragment' });
  });

  it('falls back to the default mode of the response type when the mode cannot be used', () => {
    expect(refusalTarget({ redirect_uri: CB, response_mode: 'fragment' }, client)).toMatchObject({ responseMode: 'query' });
    expect(refusalTarget({ redirect_uri: CB, response_type: 'id_token', response_mode: 'query' }, client)).toMatchObject({ responseMode: 'fragment' });
    expect(refusalTarget({ redirect_uri: CB, response_type: 'bogus' }, client)).toMatchObject({ responseMode: 'query' });
    // A JWT mode that cannot be used: the JWT form of the default (JARM).
    expect(refusalTarget({ redirect_uri: CB, response_mode: 'fragment.jwt' }, client)).toMatchObject({ responseMode: 'query.jwt' });
    expect(refusalTarget({ redirect_uri: CB, response_mode: 'jwt' }, client)).toMatchObject({ responseMode: 'query.jwt' });
  });

  it('has no target for a redirect URI the client did not register', () => {
    expect(refusalTarget({ redirect_uri: 'https://evil.example/cb' }, client)).toBeNull();
    expect(refusalTarget({}, client)).toBeNull();
    expect(refusalTarget({ redirect_uri: [CB, CB] }, client)).toBeNull();
  });
});

describe('isPushedRequestReference and buildRedirect', () => {
  it('tells a pushed request reference from a request object by reference', () => {
    expect(isPushedRequestReference({ request_uri: 'urn:ietf:params:oauth:request_uri:abc' })).toBe(true);
    expect(isPushedRequestReference({ request_uri: 'https://rp.example/r.jwt' })).toBe(false);
    expect(isPushedRequestReference({ request_uri: ['urn:ietf:params:oauth:request_uri:abc'] })).toBe(false);
    expect(isPushedRequestReference({})).toBe(false);
  });

  it('adds the parameters to the redirect URI, keeping its own query, leaving out null and undefined', () => {
    expect(buildRedirect('https://rp.example/cb?tenant=a', { code: 'c 1', state: null, iss: 'https://id.example', x: undefined })).toBe(
      'https://rp.example/cb?tenant=a&code=c+1&iss=https%3A%2F%2Fid.example',
    );
    expect(buildRedirect('https://rp.example/cb?state=theirs', { state: 'ours' })).toBe('https://rp.example/cb?state=theirs&state=ours');
  });
});

describe('dpop_jkt (RFC 9449 §10)', () => {
  const client = { clientId: 'c', public: false, redirectUris: [{ type: 'equals' as const, value: 'https://rp.example/cb' }], allowedScopes: ['openid'] };
  const base = {
    client_id: 'c',
    response_type: 'code',
    redirect_uri: 'https://rp.example/cb',
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  };
  it('keeps a thumbprint, and refuses anything else', () => {
    const jkt = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
    const ok = validateAuthorizationRequest({ ...base, dpop_jkt: jkt }, client);
    expect(ok.kind === 'ok' && ok.params.dpopJkt).toBe(jkt);
    for (const bad of ['short', `${jkt}=`, [jkt, jkt]]) {
      const r = validateAuthorizationRequest({ ...base, dpop_jkt: bad }, client);
      expect(r.kind === 'redirect-error' && r.error).toBe('invalid_request');
    }
  });
});
