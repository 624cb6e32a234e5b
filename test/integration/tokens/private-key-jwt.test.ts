// private_key_jwt client authentication (RFC 7523) at the token, introspection
// and revocation endpoints: inline jwks and jwks_uri keys, RS256 / PS256 / ES256 /
// EdDSA, and the refusals (replay, audience other than the issuer as a single
// string, expiry, lifetime, unknown kid, a client not registered for the method).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { SignJWT, type JWK } from 'jose';
import { JWT_BEARER_ASSERTION_TYPE } from '../../../api/protocol/shared/client-assertion.js';
import { s256Challenge } from '../../../lib/model/pkce.js';
import type { NewClientInput } from '../../../lib/model/clients.js';
import { createClient } from '../../../lib/store/clients.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { newClientKey, type ClientKey, type ClientKeyAlg } from '../../support/client-keys.js';
import { epochSeconds, postForm } from '../../support/http.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newRp } from '../../../tools/fixtures/clients.js';

const PASSWORD = 'private key jwt password';
const REDIRECT = 'https://pkjwt-rp.example/cb';

const api = useTestApi();

const RP: NewClientInput = {
  name: 'private_key_jwt RP',
  redirectUris: [{ type: 'equals', value: REDIRECT }],
  allowedScopes: ['openid', 'profile', 'offline_access'],
  tokenEndpointAuthMethod: 'private_key_jwt',
  idTokenSignedResponseAlg: 'RS256',
};

/** A private_key_jwt client with these public keys or this JWKS URL: its id. */
async function keyRp(keys: { jwks?: ClientKey[]; jwksUri?: string }): Promise<string> {
  return (await newRp(api.deps, { ...RP, jwks: keys.jwks ? { keys: keys.jwks.map((k) => k.jwk) } : null, jwksUri: keys.jwksUri ?? null })).id;
}

function assertion(
  key: ClientKey,
  clientId: string,
  o: { aud?: string | string[]; iat?: number; exp?: number; jti?: string | null; iss?: string; kid?: string } = {},
) {
  const iat = o.iat ?? epochSeconds();
  const claims: Record<string, unknown> = { iss: o.iss ?? clientId, sub: clientId, aud: o.aud ?? api.issuer, iat, exp: o.exp ?? iat + 60 };
  if (o.jti !== null) claims.jti = o.jti ?? randomUUID();
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: o.kid ?? key.kid }).sign(key.privateKey);
}

const post = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) => postForm(api.issuer, path, body, headers);

const withAssertion = (jwt: string) => ({ client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_assertion: jwt });
/** Introspection of an unknown token: 200 {active:false} exactly when the client authenticated. */
const introspectWith = (jwt: string, extra: Record<string, string> = {}) =>
  post('/api/oauth/introspect', { token: 'unknown-token', ...withAssertion(jwt), ...extra });

async function expectInvalidClient(r: { res: Response; body: Json }, description?: RegExp) {
  expect(r.res.status).toBe(400); // not Basic: RFC 6749 §5.2, the existing rule
  expect(r.body.error).toBe('invalid_client');
  if (description) expect(r.body.error_description).toMatch(description);
}

/** The PKCE verifier of every authorization request of these tests (its challenge goes to authorize). */
const VERIFIER = 'private-key-jwt-test-verifier-0123456789-abcdefghij';

async function authorizationCode(clientId: string, scope = 'openid profile offline_access'): Promise<string> {
  const { email } = await newUser(api.deps, { prefix: 'pkjwt', password: PASSWORD });
  const agent = new HttpUser(api.issuer);
  let step = await agent.get(
    `/api/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope, code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' })}`,
  );
  step = await agent.signIn(step, email, PASSWORD);
  step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  return step.external!.searchParams.get('code')!;
}

describe.each<ClientKeyAlg>(['RS256', 'PS256', 'ES256', 'EdDSA'])('private_key_jwt with an inline %s key', (alg) => {
  it('authenticates at introspection, the token endpoint and revocation with aud = the issuer', async () => {
    const key = await newClientKey(alg);
    const clientId = await keyRp({ jwks: [key] });
    const ok = await introspectWith(await assertion(key, clientId));
    expect(ok.res.status).toBe(200);
    expect(ok.body).toEqual({ active: false });

    const code = await authorizationCode(clientId);
    const tokens = await post('/api/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
      client_id: clientId,
      ...withAssertion(await assertion(key, clientId)),
    });
    expect(tokens.res.status).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), refresh_token: expect.any(String) });

    // Introspection sees the client's own token.
    const seen = await introspectWith(await assertion(key, clientId), { token: tokens.body.access_token });
    expect(seen.body).toMatchObject({ active: true, client_id: clientId });
    // Refresh and revocation authenticate the same way.
    const refreshed = await post('/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
      ...withAssertion(await assertion(key, clientId)),
    });
    expect(refreshed.res.status).toBe(200);
    const revoked = await post('/api/oauth/revoke', { token: refreshed.body.refresh_token, ...withAssertion(await assertion(key, clientId)) });
    expect(revoked.res.status).toBe(200);
    expect((await introspectWith(await assertion(key, clientId), { token: refreshed.body.refresh_token })).body).toEqual({ active: false });
  });
});

describe('private_key_jwt at the PAR endpoint', () => {
  it('pushes an authorization request authenticated with an assertion (aud = the issuer; not the PAR or token URL)', async () => {
    const key = await newClientKey('ES256');
    const clientId = await keyRp({ jwks: [key] });
    const push = async (aud?: string, jwt?: string) =>
      post('/api/oauth/par', {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        ...withAssertion(jwt ?? (await assertion(key, clientId, aud ? { aud } : {}))),
      });
    const r = await push();
    expect(r.res.status).toBe(201);
    expect(r.body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    await expectInvalidClient(await push(`${api.issuer}/api/oauth/par`), /aud/);
    await expectInvalidClient(await push(`${api.issuer}/api/oauth/token`), /aud/);
    const jwt = await assertion(key, clientId);
    expect((await push(undefined, jwt)).res.status).toBe(201);
    await expectInvalidClient(await push(undefined, jwt), /already used/);
    await expectInvalidClient(await push('https://elsewhere.example'), /aud/);
  });
});

describe('private_key_jwt at the device authorization endpoint', () => {
  it('starts a device flow and polls with assertions', async () => {
    const key = await newClientKey('EdDSA');
    const clientId = await keyRp({ jwks: [key] });
    const started = await post('/api/oauth/device_authorization', { client_id: clientId, scope: 'openid', ...withAssertion(await assertion(key, clientId)) });
    expect(started.res.status).toBe(200);
    const poll = await post('/api/oauth/token', {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: started.body.device_code,
      ...withAssertion(await assertion(key, clientId)),
    });
    expect(poll.body.error).toBe('authorization_pending');
  });
});

describe('private_key_jwt refusals', () => {
  let key: ClientKey;
  let clientId: string;
  beforeAll(async () => {
    key = await newClientKey('ES256');
    clientId = await keyRp({ jwks: [key] });
  });

  it('refuses a replayed assertion (jti single use)', async () => {
    const jwt = await assertion(key, clientId);
    expect((await introspectWith(jwt)).res.status).toBe(200);
    await expectInvalidClient(await introspectWith(jwt), /already used/);
    // At the token endpoint too, even for another grant attempt.
    await expectInvalidClient(await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', ...withAssertion(jwt) }), /already used/);
  });

  it('refuses an assertion without jti', async () => {
    await expectInvalidClient(await introspectWith(await assertion(key, clientId, { jti: null })));
  });

  it('refuses a wrong audience', async () => {
    await expectInvalidClient(await introspectWith(await assertion(key, clientId, { aud: 'https://elsewhere.example' })), /aud/);
    // The URL of another endpoint than the one called is not the audience either.
    await expectInvalidClient(await introspectWith(await assertion(key, clientId, { aud: `${api.issuer}/api/oauth/revoke` })), /aud/);
  });

  // Audience injection: only the issuer, as a single string, is the audience, at every endpoint.
  const notTheIssuerAlone = (): [string, string | string[]][] => [
    ['the token endpoint URL', `${api.issuer}/api/oauth/token`],
    ['the introspection endpoint URL', `${api.issuer}/api/oauth/introspect`],
    ['the revocation endpoint URL', `${api.issuer}/api/oauth/revoke`],
    ['the issuer inside an array', [api.issuer]],
    ['an array of the issuer and another audience', [api.issuer, 'https://elsewhere.example']],
    ['the issuer with a trailing slash', `${api.issuer}/`],
  ];

  it('refuses every audience but the issuer as a single string, at every endpoint', async () => {
    for (const [name, aud] of notTheIssuerAlone()) {
      const attempts = {
        introspection: await introspectWith(await assertion(key, clientId, { aud })),
        token: await post('/api/oauth/token', {
          grant_type: 'refresh_token',
          refresh_token: 'unknown',
          ...withAssertion(await assertion(key, clientId, { aud })),
        }),
        revocation: await post('/api/oauth/revoke', { token: 'unknown', ...withAssertion(await assertion(key, clientId, { aud })) }),
        'device authorization': await post('/api/oauth/device_authorization', { scope: 'openid', ...withAssertion(await assertion(key, clientId, { aud })) }),
      };
      for (const [endpoint, r] of Object.entries(attempts)) {
        expect([name, endpoint, r.res.status, r.body?.error]).toEqual([name, endpoint, 400, 'invalid_client']);
        expect(r.body.error_description).toMatch(/aud/);
      }
    }
    // The same client, with the issuer as aud, is accepted everywhere.
    expect((await introspectWith(await assertion(key, clientId))).res.status).toBe(200);
    expect((await post('/api/oauth/revoke', { token: 'unknown', ...withAssertion(await assertion(key, clientId)) })).res.status).toBe(200);
    expect(
      (await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: 'unknown', ...withAssertion(await assertion(key, clientId)) })).body.error,
    ).toBe('invalid_grant');
  });

  it('refuses an expired assertion', async () => {
    await expectInvalidClient(await introspectWith(await assertion(key, clientId, { iat: epochSeconds() - 200, exp: epochSeconds() - 60 })), /expired/);
  });

  it('refuses a lifetime over 5 minutes', async () => {
    await expectInvalidClient(await introspectWith(await assertion(key, clientId, { exp: epochSeconds() + 600 })), /at most 300 seconds/);
    await expectInvalidClient(await introspectWith(await assertion(key, clientId, { iat: epochSeconds(), exp: epochSeconds() + 301 })), /at most 300 seconds/);
  });

  it('refuses an unknown kid and a key that is not the client’s', async () => {
    await expectInvalidClient(await introspectWith(await assertion(key, clientId, { kid: 'not-a-known-kid' })));
    const other = await newClientKey('ES256');
    await expectInvalidClient(await introspectWith(await assertion({ ...other, kid: key.kid }, clientId)));
  });

  it('refuses iss other than the client and a mismatching client_id', async () => {
    await expectInvalidClient(await introspectWith(await assertion(key, clientId, { iss: 'someone-else' })));
    await expectInvalidClient(await introspectWith(await assertion(key, clientId), { client_id: 'another-client' }));
  });

  it('refuses a wrong assertion type, HS256 and mixing with Basic', async () => {
    const jwt = await assertion(key, clientId);
    await expectInvalidClient(await post('/api/oauth/introspect', { token: 't', client_assertion_type: 'urn:other', client_assertion: jwt }));
    const hs = await new SignJWT({ iss: clientId, sub: clientId, aud: api.issuer, jti: randomUUID() })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'));
    await expectInvalidClient(await introspectWith(hs));
    const basic = await post(
      '/api/oauth/introspect',
      { token: 't', ...withAssertion(await assertion(key, clientId)) },
      { authorization: `Basic ${Buffer.from(`${clientId}:x`).toString('base64')}` },
    );
    expect(basic.body.error).toBe('invalid_request');
  });

  it('refuses a client not registered for private_key_jwt', async () => {
    const { client } = await createClient(api.deps.store, { name: 'secret RP', redirectUris: [{ type: 'equals', value: REDIRECT }] });
    await expectInvalidClient(await introspectWith(await assertion(key, client._id)), /not registered for private_key_jwt/);
  });
});

describe('private_key_jwt with a jwks_uri', () => {
  let server: http.Server;
  let served: JWK[] = [];
  let fetches = 0;
  let jwksUri: string;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      fetches++;
      res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: served }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('fetches the keys, caches them, and picks up a rotated kid by one refetch, even right after a fetch (then at most every 30 s)', async () => {
    const first = await newClientKey('RS256');
    served = [first.jwk];
    const clientId = await keyRp({ jwksUri });
    const before = fetches;
    expect((await introspectWith(await assertion(first, clientId))).res.status).toBe(200);
    expect((await introspectWith(await assertion(first, clientId))).res.status).toBe(200);
    expect(fetches).toBe(before + 1); // cached

    // The client rotates: a new kid at the jwks_uri, moments after Keyflow fetched it.
    const second = await newClientKey('EdDSA');
    served = [first.jwk, second.jwk];
    expect((await introspectWith(await assertion(second, clientId))).res.status).toBe(200);
    expect(fetches).toBe(before + 2);
    // A kid still unknown right after that refetch is refused without another fetch (at most one per 30 s).
    await expectInvalidClient(await introspectWith(await assertion(second, clientId, { kid: 'still-unknown' })));
    expect(fetches).toBe(before + 2);
    // 31 s later (the api runs in this process: its clock is shifted), an unknown kid refetches once more.
    const realNow = Date.now;
    Date.now = () => realNow() + 31_000;
    try {
      await expectInvalidClient(await introspectWith(await assertion(second, clientId, { kid: 'still-unknown' })));
      expect(fetches).toBe(before + 3);
      await expectInvalidClient(await introspectWith(await assertion(second, clientId, { kid: 'still-unknown' })));
      expect(fetches).toBe(before + 3);
    } finally {
      Date.now = realNow;
    }
  });

  it('refreshes with an assertion signed by a key that replaced the old one at the jwks_uri between two refreshes', async () => {
    // The conformance suite's RP key rotation: code flow with one key, the key replaced (new kid), then a refresh.
    const old = await newClientKey('RS256');
    served = [old.jwk];
    const clientId = await keyRp({ jwksUri });
    const code = await authorizationCode(clientId);
    const tokens = await post('/api/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
      ...withAssertion(await assertion(old, clientId)),
    });
    expect(tokens.res.status).toBe(200);
    const first = await post('/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
      ...withAssertion(await assertion(old, clientId)),
    });
    expect(first.res.status).toBe(200);
    const before = fetches;

    // Between two refreshes, seconds after Keyflow fetched the set (well within the 30 s).
    const rotated = await newClientKey('RS256');
    served = [rotated.jwk];
    const refreshed = await post('/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
      ...withAssertion(await assertion(rotated, clientId)),
    });
    expect([refreshed.res.status, refreshed.body.error_description]).toEqual([200, undefined]);
    expect(refreshed.body.refresh_token).toEqual(expect.any(String));
    expect(fetches).toBe(before + 1);
    // The old key is gone from the set: an assertion signed with it no longer authenticates.
    await expectInvalidClient(await introspectWith(await assertion(old, clientId)));
  });

  it('refuses when the jwks_uri does not answer a key set', async () => {
    const key = await newClientKey('ES256');
    const clientId = await keyRp({ jwksUri: 'http://127.0.0.1:1/jwks' }); // nothing listens there
    await expectInvalidClient(await introspectWith(await assertion(key, clientId)), /jwks_uri/);
  });
});
