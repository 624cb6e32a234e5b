// Client metadata as a relying party registers it (RFC 7591 / 7592) and as a
// user sends it to the app API: each refusal with the error and description
// the RP reads, what a registration becomes, and what the client information
// document and the app JSON show back.
import {
  appJson,
  appToClient,
  authorizationAlgOf,
  clientInformation,
  idTokenAlgOf,
  isHttpUri,
  logoOrigin,
  REGISTRATION_DEFAULT_SCOPES,
  registrationToClient,
  sensitiveChanges,
  userinfoAlgOf,
} from '../../../lib/model/client-metadata.js';
import { newClient } from '../../../lib/model/client-secrets.js';
import { ID_TOKEN_ALGS, type ClientDoc, type IdTokenAlg, type NewClientInput } from '../../../lib/model/clients.js';

const GRANTS = ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code', 'implicit'];
const ALGS = ID_TOKEN_ALGS;
const RS256_ONLY = ['RS256'] as const;
const CB = 'https://rp.example/cb';
const JWKS = { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }] };

const register = (body: unknown, opts: { algs?: readonly ('ML-DSA-65' | 'RS256')[]; requirePkce?: boolean; grants?: string[] } = {}) =>
  registrationToClient(body, 'owner-1', opts.grants ?? GRANTS, opts.algs ?? ALGS, opts.requirePkce ?? true);
const base = { client_name: 'RP', redirect_uris: [CB] };
const registered = (body: Record<string, unknown>, opts?: Parameters<typeof register>[1]) => {
  const r = register({ ...base, ...body }, opts);
  if (!r.ok) throw new Error(`refused: ${r.description}`);
  return r;
};

describe('idTokenAlgOf and userinfoAlgOf', () => {
  it('gives the first offered ID token algorithm when none is asked for, an offered one as asked, and refuses the others', () => {
    expect(idTokenAlgOf(undefined, ALGS)).toEqual({ ok: true, alg: 'ML-DSA-65' });
    expect(idTokenAlgOf(undefined, RS256_ONLY)).toEqual({ ok: true, alg: 'RS256' });
    expect(idTokenAlgOf('RS256', ALGS)).toEqual({ ok: true, alg: 'RS256' });
    expect(idTokenAlgOf('ML-DSA-65', RS256_ONLY)).toEqual({ ok: false, description: 'id_token_signed_response_alg must be one of RS256' });
    expect(idTokenAlgOf('HS256', ALGS)).toEqual({ ok: false, description: 'id_token_signed_response_alg must be one of ML-DSA-65, RS256, PS256, ES256' });
    expect(idTokenAlgOf('none', ALGS).ok).toBe(false);
  });

  it('answers UserInfo as plain JSON for none or nothing named, signed with an offered algorithm otherwise', () => {
    for (const asked of [undefined, null, 'none']) expect(userinfoAlgOf(asked, ALGS)).toEqual({ ok: true, alg: null });
    expect(userinfoAlgOf('RS256', ALGS)).toEqual({ ok: true, alg: 'RS256' });
    expect(userinfoAlgOf('ML-DSA-65', RS256_ONLY)).toEqual({ ok: false, description: 'userinfo_signed_response_alg must be one of RS256 or none' });
    expect(userinfoAlgOf('ES256', ALGS)).toEqual({ ok: true, alg: 'ES256' });
    expect(userinfoAlgOf('ES384', ALGS).ok).toBe(false);
  });
});

describe('authorizationAlgOf (JARM)', () => {
  it('registers nothing when nothing is named (RS256 applies when signing), an offered algorithm as asked, and refuses none and the others', () => {
    for (const asked of [undefined, null]) expect(authorizationAlgOf(asked, ALGS)).toEqual({ ok: true, alg: null });
    expect(authorizationAlgOf('RS256', ALGS)).toEqual({ ok: true, alg: 'RS256' });
    expect(authorizationAlgOf('ML-DSA-65', ALGS)).toEqual({ ok: true, alg: 'ML-DSA-65' });
    expect(authorizationAlgOf('ML-DSA-65', RS256_ONLY)).toEqual({ ok: false, description: 'authorization_signed_response_alg must be one of RS256' });
    for (const asked of ['none', 'HS256', 'ES384', ''])
      expect(authorizationAlgOf(asked, ALGS)).toEqual({
        ok: false,
        description: 'authorization_signed_response_alg must be one of ML-DSA-65, RS256, PS256, ES256',
      });
  });
});

describe('isHttpUri (client_uri, policy_uri, tos_uri)', () => {
  it.each([
    ['https://rp.example/about', true],
    ['http://rp.example/about', true],
    ['https://rp.example/about#top', false],
    ['javascript:alert(1)', false],
    ['ftp://rp.example/tos', false],
    ['/about', false],
    ['', false],
  ])('%j -> %s', (uri, expected) => {
    expect(isHttpUri(uri)).toBe(expected);
  });
});

describe('logoOrigin', () => {
  it.each([
    ['https://cdn.rp.example/logo.png', 'https://cdn.rp.example'],
    ['https://CDN.rp.example:8443/a/logo.png?v=2', 'https://cdn.rp.example:8443'],
    ['https://192.0.2.7/logo.png', 'https://192.0.2.7'],
    ['https://cdn.rp.example:443/logo.png', 'https://cdn.rp.example'],
  ])('shows %j from %j', (uri, origin) => {
    expect(logoOrigin(uri)).toBe(origin);
  });

  it.each([
    ['plain http', 'http://cdn.rp.example/logo.png'],
    ['credentials', 'https://user:pw@cdn.rp.example/logo.png'],
    ['a user name', 'https://user@cdn.rp.example/logo.png'],
    ['a fragment', 'https://cdn.rp.example/logo.png#x'],
    ['an IPv6 host (no CSP host-source for it)', 'https://[2001:db8::1]/logo.png'],
    ['a data URI', 'data:image/png;base64,AAAA'],
    ['not a URI', 'logo.png'],
    ['a host with an underscore', 'https://cdn_1.rp.example/logo.png'],
  ])('refuses %s', (_name, uri) => {
    expect(logoOrigin(uri)).toBeNull();
  });
});

describe('registrationToClient: what a registration becomes', () => {
  it('maps the minimal metadata onto a confidential code client with the registration defaults', () => {
    const r = registered({}, { requirePkce: false });
    expect(r.input).toEqual({
      name: 'RP',
      redirectUris: [{ type: 'equals', value: CB }],
      allowedScopes: [...REGISTRATION_DEFAULT_SCOPES],
      public: false,
      tokenEndpointAuthMethod: 'client_secret_basic',
      postLogoutRedirectUris: [],
      backchannelLogoutUri: null,
      jwks: null,
      jwksUri: null,
      // OIDC Dynamic Client Registration §2's default, not the ML-DSA-65 of apps made in Keyflow.
      idTokenSignedResponseAlg: 'RS256',
      userinfoSignedResponseAlg: null,
      introspectionSignedResponseAlg: null,
      requestObjectSigningAlg: null,
      requestUris: [],
      authorizationSignedResponseAlg: null,
      accessTokenSignedResponseAlg: null,
      requirePushedAuthorizationRequests: false,
      fapiProfile: null,
      requireSignedRequestObject: false,
      requirePkce: false,
      isVerified: false,
      ownerUserId: 'owner-1',
      // The model reads them too: a redirect-based grant needs a redirect URI.
      grantTypes: ['authorization_code'],
    });
    expect(r.extras).toEqual({ grantTypes: ['authorization_code'], responseTypes: ['code'], clientUri: null, logoUri: null, policyUri: null, tosUri: null });
    expect(r.metadata).toEqual(base);
  });

  it('registers every OpenID Connect scope by default (offline_access included), and exactly the scopes named otherwise', () => {
    expect(REGISTRATION_DEFAULT_SCOPES).toEqual(['openid', 'profile', 'email', 'address', 'phone', 'offline_access']);
    expect(registered({ scope: 'openid  email openid' }).input.allowedScopes).toEqual(['openid', 'email']);
    expect(registered({ scope: '' }).input.allowedScopes).toEqual([]);
  });

  it('makes a client using PKCE by the deployment default, always for a public one, and as asked for a confidential one', () => {
    expect(registered({}, { requirePkce: true }).input.requirePkce).toBe(true);
    expect(registered({}, { requirePkce: false }).input.requirePkce).toBe(false);
    expect(registered({ token_endpoint_auth_method: 'none' }, { requirePkce: false }).input).toMatchObject({ public: true, requirePkce: true });
    expect(registered({ require_pkce: false }, { requirePkce: true }).input.requirePkce).toBe(false);
    expect(registered({ require_pkce: true }, { requirePkce: false }).input.requirePkce).toBe(true);
  });

  it('keeps what each method needs: a public client, a private_key_jwt client with its keys', () => {
    expect(registered({ token_endpoint_auth_method: 'none' }).input).toMatchObject({ public: true, tokenEndpointAuthMethod: 'none' });
    expect(registered({ token_endpoint_auth_method: 'client_secret_post' }).input).toMatchObject({
      public: false,
      tokenEndpointAuthMethod: 'client_secret_post',
    });
    expect(registered({ token_endpoint_auth_method: 'private_key_jwt', jwks: JWKS }).input).toMatchObject({ jwks: JWKS, jwksUri: null });
    expect(registered({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://rp.example/jwks' }).input).toMatchObject({
      jwks: null,
      jwksUri: 'https://rp.example/jwks',
    });
  });

  it('keeps the implicit response types, in their canonical spelling, for a client that asks for implicit', () => {
    const r = registered({ grant_types: ['implicit', 'authorization_code', 'implicit'], response_types: ['code', 'token id_token', 'id_token'] });
    expect(r.extras.grantTypes).toEqual(['implicit', 'authorization_code']);
    expect(r.extras.responseTypes).toEqual(['code', 'id_token token', 'id_token']);
    expect(registered({ grant_types: ['implicit'], response_types: ['id_token'] }).extras).toMatchObject({
      grantTypes: ['implicit'],
      responseTypes: ['id_token'],
    });
  });

  it('registers a client without a code (device flow only) with no response types', () => {
    const r = registered({ grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'] });
    expect(r.extras).toMatchObject({ grantTypes: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'], responseTypes: [] });
  });

  it('takes the algorithms, the logout and request URIs, the links and PAR as registered', () => {
    const r = registered({
      id_token_signed_response_alg: 'RS256',
      userinfo_signed_response_alg: 'ML-DSA-65',
      request_object_signing_alg: 'ES256',
      request_uris: ['https://rp.example/request.jwt#hash'],
      authorization_signed_response_alg: 'ML-DSA-65',
      post_logout_redirect_uris: ['https://rp.example/bye'],
      backchannel_logout_uri: 'https://rp.example/backchannel',
      require_pushed_authorization_requests: true,
      client_uri: 'https://rp.example/',
      logo_uri: 'https://cdn.rp.example/logo.png',
      policy_uri: 'http://rp.example/privacy',
      tos_uri: 'https://rp.example/tos',
      software_id: 'ignored: unknown fields are ignored (RFC 7591 section 2)',
    });
    expect(r.input).toMatchObject({
      idTokenSignedResponseAlg: 'RS256',
      userinfoSignedResponseAlg: 'ML-DSA-65',
      requestObjectSigningAlg: 'ES256',
      requestUris: ['https://rp.example/request.jwt#hash'],
      authorizationSignedResponseAlg: 'ML-DSA-65',
      postLogoutRedirectUris: ['https://rp.example/bye'],
      backchannelLogoutUri: 'https://rp.example/backchannel',
      requirePushedAuthorizationRequests: true,
    });
    expect(r.input).not.toHaveProperty('softwareId');
    expect(r.extras).toMatchObject({
      clientUri: 'https://rp.example/',
      logoUri: 'https://cdn.rp.example/logo.png',
      policyUri: 'http://rp.example/privacy',
      tosUri: 'https://rp.example/tos',
    });
    expect(registered({ userinfo_signed_response_alg: 'none', request_object_signing_alg: 'none' }).input).toMatchObject({
      userinfoSignedResponseAlg: null,
      requestObjectSigningAlg: 'none',
    });
  });

  it('gives a deployment without ML-DSA an RS256 client', () => {
    expect(registered({}, { algs: RS256_ONLY }).input.idTokenSignedResponseAlg).toBe('RS256');
  });
});

describe('registrationToClient: refusals', () => {
  const REDIRECT = 'invalid_redirect_uri';
  const METADATA = 'invalid_client_metadata';

  it.each<[string, unknown, string, string]>([
    ['an array body', [base], METADATA, 'the body must be a JSON object of client metadata'],
    ['a null body', null, METADATA, 'the body must be a JSON object of client metadata'],
    ['a text body', 'client_name=RP', METADATA, 'the body must be a JSON object of client metadata'],
    ['no client_name', { redirect_uris: [CB] }, METADATA, 'client_name: is required'],
    ['a blank client_name', { ...base, client_name: '   ' }, METADATA, 'client_name: is required'],
    ['a client_name that is not text', { ...base, client_name: 5 }, METADATA, 'client_name: is required'],
    [
      'a client_name over 200 characters',
      { ...base, client_name: 'n'.repeat(201) },
      METADATA,
      'client_name: Too big: expected string to have <=200 characters',
    ],
    ['redirect_uris not a list', { ...base, redirect_uris: CB }, REDIRECT, 'redirect_uris: Invalid input: expected array, received string'],
    ['a redirect URI that is not text', { ...base, redirect_uris: [1] }, REDIRECT, 'redirect_uris.0: Invalid input: expected string, received number'],
    ['an empty redirect URI', { ...base, redirect_uris: [CB, ''] }, REDIRECT, 'redirect_uris.1: must be a URI'],
    ['no redirect URI', { client_name: 'RP' }, REDIRECT, 'redirect_uris: at least one redirect URI is required'],
    ['an empty redirect_uris', { ...base, redirect_uris: [] }, REDIRECT, 'redirect_uris: at least one redirect URI is required'],
    ['more than 50 redirect URIs', { ...base, redirect_uris: Array(51).fill(CB) }, REDIRECT, 'redirect_uris: Too big: expected array to have <=50 items'],
    [
      'a plain-http redirect URI',
      { ...base, redirect_uris: ['http://rp.example/cb'] },
      REDIRECT,
      'redirect_uris.0: http://rp.example/cb must use https (http only for loopback hosts)',
    ],
    [
      'a redirect URI with a fragment',
      { ...base, redirect_uris: ['https://rp.example/cb#x'] },
      REDIRECT,
      'redirect_uris.0: https://rp.example/cb#x must not contain a fragment',
    ],
    ['an unknown scope', { ...base, scope: 'openid bogus' }, METADATA, 'scope.1: unknown scope "bogus"'],
    [
      'an unknown authentication method',
      { ...base, token_endpoint_auth_method: 'tls_client_auth' },
      METADATA,
      'token_endpoint_auth_method must be one of client_secret_basic, client_secret_post, private_key_jwt, none',
    ],
    ['private_key_jwt without keys', { ...base, token_endpoint_auth_method: 'private_key_jwt' }, METADATA, 'private_key_jwt needs jwks or jwks_uri'],
    ['both jwks and jwks_uri', { ...base, jwks: JWKS, jwks_uri: 'https://rp.example/jwks' }, METADATA, 'jwks and jwks_uri are mutually exclusive'],
    ['jwks that is not a JWK Set', { ...base, jwks: [JWKS.keys[0]] }, METADATA, 'jwks must be a JWK Set: {"keys": [...]}'],
    ['jwks without keys', { ...base, jwks: {} }, METADATA, 'jwks must be a JWK Set: {"keys": [...]}'],
    ['a JWK Set with no key', { ...base, jwks: { keys: [] } }, METADATA, 'jwks.keys: Too small: expected array to have >=1 items'],
    [
      'a plain-http jwks_uri',
      { ...base, jwks_uri: 'http://rp.example/jwks' },
      METADATA,
      'jwks_uri: must be an absolute https URI without credentials or fragment (http only for loopback hosts)',
    ],
    [
      'a grant type Keyflow does not serve',
      { ...base, grant_types: ['authorization_code', 'password'] },
      METADATA,
      `grant_type password is not supported; supported: ${GRANTS.join(', ')}`,
    ],
    [
      'an unknown response type',
      { ...base, response_types: ['code', 'token'] },
      METADATA,
      'response_type token is not supported; supported: code, id_token, id_token token',
    ],
    [
      'a code without authorization_code',
      { ...base, grant_types: ['refresh_token'], response_types: ['code'] },
      METADATA,
      'response_types code and grant_types authorization_code go together (RFC 7591 section 2.1)',
    ],
    [
      'authorization_code without a code',
      { ...base, response_types: [] },
      METADATA,
      'response_types code and grant_types authorization_code go together (RFC 7591 section 2.1)',
    ],
    [
      'implicit without its response types',
      { ...base, grant_types: ['authorization_code', 'implicit'] },
      METADATA,
      'response_types id_token and id_token token go together with grant_types implicit (OpenID Connect Dynamic Registration section 2)',
    ],
    [
      'implicit response types without implicit',
      { ...base, response_types: ['code', 'id_token'] },
      METADATA,
      'response_types id_token and id_token token go together with grant_types implicit (OpenID Connect Dynamic Registration section 2)',
    ],
    [
      'an ID token algorithm not offered',
      { ...base, id_token_signed_response_alg: 'HS256' },
      METADATA,
      'id_token_signed_response_alg must be one of ML-DSA-65, RS256, PS256, ES256',
    ],
    [
      'a UserInfo algorithm not offered',
      { ...base, userinfo_signed_response_alg: 'ES384' },
      METADATA,
      'userinfo_signed_response_alg must be one of ML-DSA-65, RS256, PS256, ES256 or none',
    ],
    [
      'an unsigned JWT authorization response (JARM)',
      { ...base, authorization_signed_response_alg: 'none' },
      METADATA,
      'authorization_signed_response_alg must be one of ML-DSA-65, RS256, PS256, ES256',
    ],
    [
      'a JWT authorization response algorithm not offered',
      { ...base, authorization_signed_response_alg: 'HS256' },
      METADATA,
      'authorization_signed_response_alg must be one of ML-DSA-65, RS256, PS256, ES256',
    ],
    [
      'a shared-secret request object algorithm',
      { ...base, request_object_signing_alg: 'HS256' },
      METADATA,
      'request_object_signing_alg must be one of RS256, PS256, ES256, EdDSA, none',
    ],
    [
      'a plain-http request_uri',
      { ...base, request_uris: ['http://rp.example/r.jwt'] },
      METADATA,
      'request_uris.0: must be an absolute https URL (http only for loopback hosts)',
    ],
    ['a request_uri with credentials', { ...base, request_uris: ['https://u:p@rp.example/r.jwt'] }, METADATA, 'request_uris.0: must not carry credentials'],
    [
      'a post-logout URI that is not absolute',
      { ...base, post_logout_redirect_uris: ['rp.example/bye'] },
      METADATA,
      'post_logout_redirect_uris.0: must be an absolute http(s) URI without fragment',
    ],
    [
      'a plain-http back-channel logout URI',
      { ...base, backchannel_logout_uri: 'http://rp.example/bcl' },
      METADATA,
      'backchannel_logout_uri: must be an absolute https URI without credentials or fragment (http only for loopback hosts)',
    ],
    ['a javascript: client_uri', { ...base, client_uri: 'javascript:alert(1)' }, METADATA, 'client_uri: must be an absolute http(s) URI without fragment'],
    [
      'a policy_uri with a fragment',
      { ...base, policy_uri: 'https://rp.example/p#x' },
      METADATA,
      'policy_uri: must be an absolute http(s) URI without fragment',
    ],
    ['a relative tos_uri', { ...base, tos_uri: '/tos' }, METADATA, 'tos_uri: must be an absolute http(s) URI without fragment'],
    [
      'a client_uri over 2048 characters',
      { ...base, client_uri: `https://rp.example/${'a'.repeat(2048)}` },
      METADATA,
      'client_uri: Too big: expected string to have <=2048 characters',
    ],
    [
      'a plain-http logo_uri',
      { ...base, logo_uri: 'http://cdn.rp.example/logo.png' },
      METADATA,
      'logo_uri: must be an absolute https URI (a host name or IPv4 address) without credentials or fragment',
    ],
    [
      'a public client that opts out of PKCE',
      { ...base, token_endpoint_auth_method: 'none', require_pkce: false },
      METADATA,
      'public clients always use PKCE (require_pkce cannot be false)',
    ],
    [
      'require_pushed_authorization_requests that is not a boolean',
      { ...base, require_pushed_authorization_requests: 'yes' },
      METADATA,
      'require_pushed_authorization_requests: Invalid input: expected boolean, received string',
    ],
  ])('refuses %s', (_name, body, error, description) => {
    expect(register(body)).toEqual({ ok: false, error, description });
  });

  it('refuses an ID token algorithm the deployment withholds', () => {
    expect(register({ ...base, id_token_signed_response_alg: 'ML-DSA-65' }, { algs: RS256_ONLY })).toEqual({
      ok: false,
      error: 'invalid_client_metadata',
      description: 'id_token_signed_response_alg must be one of RS256',
    });
  });

  it('refuses implicit on a deployment that does not serve it', () => {
    const r = register({ ...base, grant_types: ['implicit'], response_types: ['id_token'] }, { grants: ['authorization_code'] });
    expect(r).toEqual({ ok: false, error: 'invalid_client_metadata', description: 'grant_type implicit is not supported; supported: authorization_code' });
  });
});

/** A stored client, as newClient makes it, with registration metadata. */
function storedClient(input: Partial<NewClientInput> = {}, extras: Partial<ClientDoc> = {}): ClientDoc {
  const { client } = newClient(
    { name: 'App', redirectUris: [{ type: 'equals', value: CB }], ownerUserId: 'owner-1', ...input },
    {},
    new Date('2025-02-03T04:05:06.789Z'),
  );
  return { ...client, ...extras };
}

describe('clientInformation (RFC 7591 section 3.2.1)', () => {
  it('shows a confidential client with its defaults and a secret that never expires', () => {
    const client = storedClient();
    expect(clientInformation(client)).toEqual({
      client_id: client._id,
      client_id_issued_at: Math.floor(Date.parse('2025-02-03T04:05:06.789Z') / 1000),
      client_name: 'App',
      redirect_uris: [CB],
      scope: 'openid profile email',
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ML-DSA-65',
      require_pkce: true,
      client_secret_expires_at: 0,
    });
  });

  it('lists only exact redirect URIs, and every optional field that is set', () => {
    const client = storedClient(
      {
        public: true,
        redirectUris: [
          { type: 'equals', value: CB },
          { type: 'wildcard', value: 'https://*.rp.example/cb' },
        ],
        postLogoutRedirectUris: ['https://rp.example/bye'],
        backchannelLogoutUri: 'https://rp.example/bcl',
        jwksUri: 'https://rp.example/jwks',
        userinfoSignedResponseAlg: 'RS256',
        requestObjectSigningAlg: 'none',
        requestUris: ['https://rp.example/r.jwt'],
        requirePushedAuthorizationRequests: true,
        authorizationSignedResponseAlg: 'RS256',
      },
      {
        grantTypes: ['authorization_code', 'implicit'],
        responseTypes: ['code', 'id_token'],
        clientUri: 'https://rp.example/',
        logoUri: 'https://cdn.rp.example/logo.png',
        policyUri: 'https://rp.example/privacy',
        tosUri: 'https://rp.example/tos',
      },
    );
    const doc = clientInformation(client);
    expect(doc).toMatchObject({
      redirect_uris: [CB],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'implicit'],
      response_types: ['code', 'id_token'],
      userinfo_signed_response_alg: 'RS256',
      request_object_signing_alg: 'none',
      request_uris: ['https://rp.example/r.jwt'],
      post_logout_redirect_uris: ['https://rp.example/bye'],
      backchannel_logout_uri: 'https://rp.example/bcl',
      jwks_uri: 'https://rp.example/jwks',
      client_uri: 'https://rp.example/',
      logo_uri: 'https://cdn.rp.example/logo.png',
      policy_uri: 'https://rp.example/privacy',
      tos_uri: 'https://rp.example/tos',
      require_pushed_authorization_requests: true,
      authorization_signed_response_alg: 'RS256',
    });
    // A public client has no secret, so nothing about its expiry.
    expect(doc).not.toHaveProperty('client_secret_expires_at');
    expect(doc).not.toHaveProperty('jwks');
  });

  it('reads a registration back as it was registered', () => {
    const r = registered({ scope: 'openid email', token_endpoint_auth_method: 'private_key_jwt', jwks: JWKS, logo_uri: 'https://cdn.rp.example/l.png' });
    const client = { ...newClient(r.input).client, ...r.extras };
    expect(clientInformation(client)).toMatchObject({
      client_name: 'RP',
      redirect_uris: [CB],
      scope: 'openid email',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: JWKS,
      logo_uri: 'https://cdn.rp.example/l.png',
      require_pkce: true,
    });
  });
});

describe('appToClient: the app API', () => {
  const app = { name: 'App', redirect_uris: [CB] };
  const ok = (body: unknown, current?: ClientDoc, algs: readonly IdTokenAlg[] = ALGS) => {
    const r = appToClient(body, 'owner-1', algs, current);
    if (!r.ok) throw new Error(`refused: ${r.description}`);
    return r.input;
  };

  it('creates an app of its user, unverified, with the first offered algorithm', () => {
    expect(ok(app)).toEqual({
      name: 'App',
      redirectUris: [{ type: 'equals', value: CB }],
      ownerUserId: 'owner-1',
      isVerified: false,
      idTokenSignedResponseAlg: 'ML-DSA-65',
    });
    expect(ok(app, undefined, RS256_ONLY).idTokenSignedResponseAlg).toBe('RS256');
  });

  it('takes redirect URIs as strings or typed entries', () => {
    const regex = { type: 'regex', value: '^https://rp\\.example/cb/[a-z]+$' };
    expect(ok({ ...app, redirect_uris: [CB, regex, { value: 'https://rp.example/other' }] }).redirectUris).toEqual([
      { type: 'equals', value: CB },
      regex,
      { type: 'equals', value: 'https://rp.example/other' },
    ]);
  });

  it('picks the authentication method that goes with public, and public with the method', () => {
    expect(ok({ ...app, public: true })).toMatchObject({ public: true, tokenEndpointAuthMethod: 'none' });
    expect(ok({ ...app, token_endpoint_auth_method: 'none' })).toMatchObject({ public: true, tokenEndpointAuthMethod: 'none' });
    const pub = storedClient({ public: true });
    expect(ok({ public: false }, pub)).toMatchObject({ public: false, tokenEndpointAuthMethod: 'client_secret_basic' });
    expect(ok({ token_endpoint_auth_method: 'client_secret_post' }, pub)).toMatchObject({ public: false, tokenEndpointAuthMethod: 'client_secret_post' });
  });

  it('changes only the fields a patch names, keeping the model fields of the app as it is', () => {
    const current = storedClient(
      { description: 'kept', oidcFields: ['teams'], allowedResources: ['https://api.rp.example'] },
      { clientUri: 'https://rp.example/' },
    );
    const input = ok({ name: 'Renamed', userinfo_signed_response_alg: 'none', request_object_signing_alg: 'EdDSA', require_pkce: false }, current);
    expect(input).toMatchObject({
      name: 'Renamed',
      description: 'kept',
      oidcFields: ['teams'],
      allowedResources: ['https://api.rp.example'],
      redirectUris: current.redirectUris,
      ownerUserId: 'owner-1',
      userinfoSignedResponseAlg: null,
      requestObjectSigningAlg: 'EdDSA',
      requirePkce: false,
    });
    // Not model fields: the id, the secret, registration metadata.
    for (const key of ['_id', 'secretHash', 'createdAt', 'updatedAt', 'clientUri', 'deactivatedAt']) expect(input).not.toHaveProperty(key);
  });

  it('sets every settable field', () => {
    const input = ok({
      ...app,
      description: 'd',
      allowed_scopes: ['openid', 'apps:read'],
      oidc_fields: ['apps'],
      post_logout_redirect_uris: ['https://rp.example/bye'],
      backchannel_logout_uri: 'https://rp.example/bcl',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: JWKS,
      id_token_signed_response_alg: 'RS256',
      userinfo_signed_response_alg: 'RS256',
      request_uris: ['https://rp.example/r.jwt'],
      require_pushed_authorization_requests: true,
      allowed_resources: ['https://api.rp.example'],
      authorization_signed_response_alg: 'RS256',
    });
    expect(input).toMatchObject({
      description: 'd',
      allowedScopes: ['openid', 'apps:read'],
      oidcFields: ['apps'],
      postLogoutRedirectUris: ['https://rp.example/bye'],
      backchannelLogoutUri: 'https://rp.example/bcl',
      public: false,
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: JWKS,
      idTokenSignedResponseAlg: 'RS256',
      userinfoSignedResponseAlg: 'RS256',
      requestUris: ['https://rp.example/r.jwt'],
      requirePushedAuthorizationRequests: true,
      allowedResources: ['https://api.rp.example'],
      authorizationSignedResponseAlg: 'RS256',
    });
  });

  it.each<[string, unknown, string]>([
    ['an array body', [app], 'the body must be a JSON object'],
    ['a null body', null, 'the body must be a JSON object'],
    ['a client_id', { ...app, client_id: 'x' }, 'client_id cannot be set here'],
    ['a secret and the owner', { ...app, client_secret: 's', owner_user_id: 'u2' }, 'client_secret, owner_user_id cannot be set here'],
    ['is_verified', { ...app, is_verified: true }, 'is_verified cannot be set here (only operators verify apps)'],
    ['is_active and the dates', { ...app, is_active: true, created_at: 'x', updated_at: 'y' }, 'is_active, created_at, updated_at cannot be set here'],
    ['an unknown field', { ...app, foo: 1 }, 'Unrecognized key: "foo"'],
    ['a camelCase field', { ...app, redirectUris: [CB] }, 'Unrecognized key: "redirectUris"'],
    ['no name on create', { redirect_uris: [CB] }, 'name: is required'],
    ['a blank name', { ...app, name: ' ' }, 'name: is required'],
    ['a name that is not text', { ...app, name: 5 }, 'name: Invalid input: expected string, received number'],
    ['no redirect URI on create', { name: 'App' }, 'redirect_uris: at least one redirect URI is required'],
    ['an unknown redirect URI type', { ...app, redirect_uris: [{ type: 'prefix', value: CB }] }, 'redirect_uris.0: Invalid input'],
    ['an extra key in a redirect URI entry', { ...app, redirect_uris: [{ value: CB, extra: 1 }] }, 'redirect_uris.0: Unrecognized key: "extra"'],
    [
      'a plain-http redirect URI',
      { ...app, redirect_uris: ['http://rp.example/cb'] },
      'redirect_uris.0: http://rp.example/cb must use https (http only for loopback hosts)',
    ],
    [
      'six regex redirect URIs',
      { ...app, redirect_uris: Array.from({ length: 6 }, (_, n) => ({ type: 'regex', value: `^https://rp\\.example/${n}$` })) },
      'redirect_uris: at most 5 regex redirect URIs',
    ],
    ['an unknown scope', { ...app, allowed_scopes: ['openid', 'bogus'] }, 'allowed_scopes.1: unknown scope "bogus"'],
    [
      'an unknown OIDC field',
      { ...app, oidc_fields: ['passwords'] },
      'oidc_fields.0: Invalid option: expected one of "teams"|"apps"|"domains"|"gpg_keys"|"social_accounts"',
    ],
    ['an unknown authentication method', { ...app, token_endpoint_auth_method: 'tls_client_auth' }, 'token_endpoint_auth_method: Invalid option'],
    [
      'public with a secret method',
      { ...app, public: true, token_endpoint_auth_method: 'client_secret_basic' },
      'a public client uses token_endpoint_auth_method none',
    ],
    [
      'confidential with method none',
      { ...app, public: false, token_endpoint_auth_method: 'none' },
      'token_endpoint_auth_method none is only for public clients',
    ],
    ['a public app without PKCE', { ...app, public: true, require_pkce: false }, 'public clients always use PKCE (require_pkce cannot be false)'],
    ['private_key_jwt without keys', { ...app, token_endpoint_auth_method: 'private_key_jwt' }, 'private_key_jwt needs jwks or jwks_uri'],
    ['both jwks and jwks_uri', { ...app, jwks: JWKS, jwks_uri: 'https://rp.example/jwks' }, 'jwks and jwks_uri are mutually exclusive'],
    [
      'an ID token algorithm not offered',
      { ...app, id_token_signed_response_alg: 'none' },
      'id_token_signed_response_alg must be one of ML-DSA-65, RS256, PS256, ES256',
    ],
    [
      'a UserInfo algorithm not offered',
      { ...app, userinfo_signed_response_alg: 'HS256' },
      'userinfo_signed_response_alg must be one of ML-DSA-65, RS256, PS256, ES256 or none',
    ],
    [
      'a request object algorithm not offered',
      { ...app, request_object_signing_alg: 'HS256' },
      'request_object_signing_alg must be one of RS256, PS256, ES256, EdDSA, none',
    ],
    [
      'an unsigned JWT authorization response',
      { ...app, authorization_signed_response_alg: 'none' },
      'authorization_signed_response_alg must be one of ML-DSA-65, RS256, PS256, ES256',
    ],
    [
      'a JWT authorization response algorithm that is not text',
      { ...app, authorization_signed_response_alg: 256 },
      'authorization_signed_response_alg: Invalid input: expected string, received number',
    ],
    [
      'a resource with whitespace',
      { ...app, allowed_resources: ['https://api.rp.example/a b'] },
      'allowed_resources.0: must not contain whitespace or control characters',
    ],
    ['a resource with a fragment', { ...app, allowed_resources: ['https://api.rp.example/#x'] }, 'allowed_resources.0: must not contain a fragment'],
    ['a relative resource', { ...app, allowed_resources: ['/api'] }, 'allowed_resources.0: must be an absolute URI'],
    [
      'a plain-http back-channel logout URI',
      { ...app, backchannel_logout_uri: 'http://rp.example/bcl' },
      'backchannel_logout_uri: must be an absolute https URI without credentials or fragment (http only for loopback hosts)',
    ],
    ['21 request URIs', { ...app, request_uris: Array(21).fill('https://rp.example/r.jwt') }, 'request_uris: Too big: expected array to have <=20 items'],
  ])('refuses %s', (_name, body, description) => {
    const r = appToClient(body, 'owner-1', ALGS);
    expect(r).toEqual({ ok: false, error: 'invalid_request', description: expect.stringContaining(description) });
  });

  it('refuses a patch that leaves the app invalid', () => {
    const current = storedClient();
    expect(appToClient({ redirect_uris: [] }, 'owner-1', ALGS, current)).toEqual({
      ok: false,
      error: 'invalid_request',
      description: 'redirect_uris: at least one redirect URI is required',
    });
    expect(appToClient({ public: true, require_pkce: false }, 'owner-1', ALGS, current)).toMatchObject({ ok: false });
  });
});

describe('sensitiveChanges', () => {
  const current = storedClient();
  const inputOf = (body: unknown) => {
    const r = appToClient(body, 'owner-1', ALGS, current);
    if (!r.ok) throw new Error(r.description);
    return r.input;
  };

  it('names none for a change of name, description, scopes or claims', () => {
    expect(sensitiveChanges(current, inputOf({ name: 'New name', description: 'd', allowed_scopes: ['openid'], oidc_fields: ['teams'] }))).toEqual([]);
    // A patch naming a sensitive field with its current value changes nothing.
    expect(sensitiveChanges(current, inputOf({ redirect_uris: [CB], require_pkce: true }))).toEqual([]);
  });

  it('names each field that changes where codes, tokens and logout tokens go or how the app authenticates', () => {
    expect(sensitiveChanges(current, inputOf({ redirect_uris: [CB, 'https://rp.example/cb2'] }))).toEqual(['redirect_uris']);
    expect(sensitiveChanges(current, inputOf({ post_logout_redirect_uris: ['https://rp.example/bye'] }))).toEqual(['post_logout_redirect_uris']);
    expect(sensitiveChanges(current, inputOf({ backchannel_logout_uri: 'https://rp.example/bcl' }))).toEqual(['backchannel_logout_uri']);
    expect(sensitiveChanges(current, inputOf({ public: true }))).toEqual(['public', 'token_endpoint_auth_method']);
    expect(sensitiveChanges(current, inputOf({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://rp.example/jwks' }))).toEqual([
      'token_endpoint_auth_method',
      'jwks_uri',
    ]);
    expect(sensitiveChanges(current, inputOf({ require_pkce: false }))).toEqual(['require_pkce']);
    // The entry's type is part of it: the same URI as a pattern is a change.
    expect(sensitiveChanges(current, inputOf({ redirect_uris: [{ type: 'regex', value: '^https://rp\\.example/cb$' }] }))).toEqual(['redirect_uris']);
  });

  it('names none for a version the model refuses (it is refused anyway)', () => {
    expect(sensitiveChanges(current, { ...inputOf({}), redirectUris: [] })).toEqual([]);
  });
});

describe('appJson', () => {
  it('shows every field, with the defaults of documents stored before a field existed, and never the secret', () => {
    const client = storedClient({ description: 'd' });
    const legacy = { ...client } as Partial<ClientDoc>;
    for (const key of [
      'userinfoSignedResponseAlg',
      'requestObjectSigningAlg',
      'requestUris',
      'requirePushedAuthorizationRequests',
      'allowedResources',
      'requirePkce',
      'authorizationSignedResponseAlg',
      'accessTokenSignedResponseAlg',
      'machineAccess',
    ] as const)
      delete legacy[key];
    expect(appJson(legacy as ClientDoc)).toEqual({
      client_id: client._id,
      name: 'App',
      description: 'd',
      public: false,
      redirect_uris: [{ type: 'equals', value: CB }],
      allowed_scopes: ['openid', 'profile', 'email'],
      oidc_fields: [],
      post_logout_redirect_uris: [],
      backchannel_logout_uri: null,
      token_endpoint_auth_method: 'client_secret_basic',
      jwks: null,
      jwks_uri: null,
      id_token_signed_response_alg: 'ML-DSA-65',
      userinfo_signed_response_alg: null,
      introspection_signed_response_alg: null,
      request_object_signing_alg: null,
      request_uris: [],
      require_pushed_authorization_requests: false,
      fapi_profile: null,
      require_signed_request_object: false,
      allowed_resources: [],
      require_pkce: true,
      authorization_signed_response_alg: null,
      access_token_signed_response_alg: null,
      machine_access: [],
      is_verified: false,
      is_active: true,
      created_at: '2025-02-03T04:05:06.789Z',
      updated_at: '2025-02-03T04:05:06.789Z',
    });
  });

  it('shows a deactivated app as inactive', () => {
    expect(appJson(storedClient({}, { deactivatedAt: new Date() })).is_active).toBe(false);
    expect(appJson(storedClient({}, { deactivatedAt: null })).is_active).toBe(true);
  });

  it('reads back through appToClient unchanged (what the API shows, a client can send back)', () => {
    const current = storedClient({
      allowedResources: ['https://api.rp.example'],
      requestUris: ['https://rp.example/r.jwt'],
      oidcFields: ['apps'],
      machineAccess: [{ resource: 'https://api.rp.example', scopes: ['orders:read'] }],
    });
    const { client_id: _i, is_verified: _v, is_active: _a, created_at: _c, updated_at: _u, ...settable } = appJson(current);
    const r = appToClient(settable, 'owner-1', ALGS, current);
    expect(r.ok).toBe(true);
    expect(sensitiveChanges(current, (r as { input: NewClientInput }).input)).toEqual([]);
  });
});
