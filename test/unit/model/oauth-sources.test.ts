// Upstream identity providers ("Sign in with …"): what an admin may configure,
// each refusal naming its field, and how a source is shown (never its secret).
import {
  claimMappingJson,
  DEFAULT_CLAIM_MAPPING,
  NewSourceInput,
  socialAccountJson,
  sourceJson,
  type OAuthSourceDoc,
} from '../../../lib/model/oauth-sources.js';
import { zodProblems } from '../../../lib/model/errors.js';

const oidc = { name: 'Google', slug: 'google', client_id: 'cid', issuer: 'https://accounts.google.com' };
const oauth2 = {
  name: 'GitHub',
  slug: 'github',
  kind: 'oauth2',
  client_id: 'cid',
  authorization_endpoint: 'https://github.com/login/oauth/authorize',
  token_endpoint: 'https://github.com/login/oauth/access_token',
  userinfo_endpoint: 'https://api.github.com/user',
};
const problems = (body: unknown) => {
  const parsed = NewSourceInput.safeParse(body);
  return parsed.success ? [] : zodProblems(parsed.error.issues);
};

describe('NewSourceInput', () => {
  it('takes an OIDC source with its issuer, with safe defaults: no sign-up, no linking by email', () => {
    expect(NewSourceInput.parse(oidc)).toEqual({
      ...oidc,
      kind: 'oidc',
      authorization_endpoint: null,
      token_endpoint: null,
      userinfo_endpoint: null,
      client_secret: null,
      scopes: ['openid', 'email', 'profile'],
      allow_sign_up: false,
      link_by_verified_email: false,
      claim_mapping: {},
      enabled: true,
    });
  });

  it('takes an OAuth 2 source with its three endpoints, and a partial claim mapping', () => {
    expect(NewSourceInput.parse({ ...oauth2, claim_mapping: { subject: 'id', username: 'login' } })).toMatchObject({
      kind: 'oauth2',
      claim_mapping: { subject: 'id', username: 'login' },
    });
  });

  it.each<[string, unknown, string[]]>([
    [
      'an OIDC source without issuer',
      { ...oidc, issuer: undefined },
      ['an oidc source needs issuer; an oauth2 source needs authorization_endpoint, token_endpoint and userinfo_endpoint'],
    ],
    [
      'an OAuth 2 source without its UserInfo endpoint',
      { ...oauth2, userinfo_endpoint: undefined },
      ['an oidc source needs issuer; an oauth2 source needs authorization_endpoint, token_endpoint and userinfo_endpoint'],
    ],
    ['a slug with a leading hyphen', { ...oidc, slug: '-google' }, ['slug: must be 1 to 40 lowercase letters, digits and inner hyphens']],
    ['a slug in capitals', { ...oidc, slug: 'Google' }, ['slug: must be 1 to 40 lowercase letters, digits and inner hyphens']],
    ['a slug of 41 characters', { ...oidc, slug: 'g'.repeat(41) }, ['slug: must be 1 to 40 lowercase letters, digits and inner hyphens']],
    ['an issuer that is not http(s)', { ...oidc, issuer: 'ftp://accounts.google.com' }, ['issuer: must be an http(s) URL']],
    ['a scope with a space', { ...oidc, scopes: ['openid email'] }, ['scopes.0: must be a scope token']],
    ['a scope with a quote', { ...oidc, scopes: ['a"b'] }, ['scopes.0: must be a scope token']],
    ['a claim name with a space', { ...oidc, claim_mapping: { email: 'e mail' } }, ['claim_mapping.email: must be a claim name']],
    ['an unknown claim mapping', { ...oidc, claim_mapping: { picture: 'avatar' } }, ['claim_mapping: Unrecognized key: "picture"']],
    ['an unknown field', { ...oidc, secret: 'x' }, ['Unrecognized key: "secret"']],
  ])('refuses %s', (_name, body, expected) => {
    expect(problems(body)).toEqual(expected);
  });
});

describe('how a source is shown', () => {
  const source: OAuthSourceDoc = {
    _id: 's1',
    slug: 'google',
    name: 'Google',
    kind: 'oidc',
    issuer: 'https://accounts.google.com',
    authorizationEndpoint: null,
    tokenEndpoint: null,
    userinfoEndpoint: null,
    clientId: 'cid',
    clientSecret: { v: 1, iv: 'iv', ct: 'sealed-secret', tag: 't' } as unknown as OAuthSourceDoc['clientSecret'],
    scopes: ['openid'],
    allowSignUp: true,
    linkByVerifiedEmail: false,
    claimMapping: DEFAULT_CLAIM_MAPPING,
    enabled: true,
    createdAt: new Date('2025-01-01T00:00:00Z'),
    updatedAt: new Date('2025-01-02T00:00:00Z'),
  };

  it('says whether a secret is set, never the secret, and names the mapping as a body would send it back', () => {
    const json = sourceJson(source);
    expect(json).toMatchObject({
      id: 's1',
      client_secret_set: true,
      allow_sign_up: true,
      link_by_verified_email: false,
      created_at: '2025-01-01T00:00:00.000Z',
    });
    expect(JSON.stringify(json)).not.toContain('sealed-secret');
    expect(sourceJson({ ...source, clientSecret: null }).client_secret_set).toBe(false);
    expect(claimMappingJson(DEFAULT_CLAIM_MAPPING)).toEqual({
      subject: 'sub',
      email: 'email',
      email_verified: 'email_verified',
      name: 'name',
      username: 'preferred_username',
    });
    expect(NewSourceInput.parse({ ...oidc, claim_mapping: json.claim_mapping }).claim_mapping).toEqual(json.claim_mapping);
  });

  it('shows a linked account by provider and the upstream id only', () => {
    const account = {
      _id: 'a1',
      userId: 'u1',
      sourceId: 's1',
      provider: 'google',
      providerUserId: '123',
      email: 'ada@example.com',
      linkedAt: new Date(),
      lastSignInAt: null,
    };
    expect(socialAccountJson(account)).toEqual({ id: 'a1', provider: 'google', provider_user_id: '123' });
  });
});
