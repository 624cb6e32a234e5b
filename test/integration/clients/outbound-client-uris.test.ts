// The URIs Keyflow calls on a client's behalf — jwks_uri and
// backchannel_logout_uri — through the app API and RFC 7591/7592
// registration: https only (http only on a loopback host); and the jwks_uri
// fetch under the outbound allow-list: admitted only for the feature, host and
// port an entry names, a failure told to the client by its kind alone (never
// a system message or an internal address).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { JWT_BEARER_ASSERTION_TYPE } from '../../../api/protocol/shared/client-assertion.js';
import { createClient } from '../../../lib/store/clients.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { createUser } from '../../../lib/store/users.js';
import { useTestApi, type ApiUnderTest, startTestApi, type Json } from '../../support/harness.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { testDatabase } from '../../support/database.js';

const REDIRECT = 'https://outbound-uris-rp.example/cb';
const api = useTestApi();

async function json(res: Response): Promise<{ status: number; body: Json }> {
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function patFor(scope: string[]): Promise<string> {
  const user = await createUser(api.deps.store, { email: uniqueEmail('outbound-uris'), password: 'outbound uris test password' });
  return (await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope, expiresInDays: 1 })).token;
}

const send = (method: string, url: string, token: string, body: unknown) =>
  fetch(url, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(json);

const PLAIN_HTTP = [
  { backchannel_logout_uri: 'http://rp.example/logout' },
  { backchannel_logout_uri: 'http://10.0.0.8/logout' },
  { jwks_uri: 'http://rp.example/jwks', token_endpoint_auth_method: 'private_key_jwt' },
];
const ACCEPTED = [
  { backchannel_logout_uri: 'https://rp.example/logout' },
  { backchannel_logout_uri: 'http://localhost:8080/logout' },
  { jwks_uri: 'https://rp.example/jwks', token_endpoint_auth_method: 'private_key_jwt' },
  { jwks_uri: 'http://127.0.0.1:8080/jwks', token_endpoint_auth_method: 'private_key_jwt' },
];

describe('jwks_uri and backchannel_logout_uri', () => {
  it('the app API refuses http:// except on a loopback host, at creation and on PATCH', async () => {
    const token = await patFor(['apps:read', 'apps:write']);
    const apps = `${api.issuer}/api/oauth/me/apps`;
    for (const fields of PLAIN_HTTP) {
      const r = await send('POST', apps, token, { name: 'plain', redirect_uris: [REDIRECT], ...fields });
      expect([fields, r.status, r.body.error]).toEqual([fields, 400, 'invalid_request']);
    }
    for (const fields of ACCEPTED) {
      const r = await send('POST', apps, token, { name: 'ok', redirect_uris: [REDIRECT], ...fields });
      expect([fields, r.status]).toEqual([fields, 201]);
    }
    const created = await send('POST', apps, token, { name: 'patched', redirect_uris: [REDIRECT] });
    for (const fields of PLAIN_HTTP) {
      const r = await send('PATCH', `${apps}/${created.body.client_id}`, token, fields);
      expect([fields, r.status, r.body.error]).toEqual([fields, 400, 'invalid_request']);
    }
  }, 60_000);

  it('dynamic registration refuses http:// except on a loopback host, at registration and on PUT', async () => {
    const token = await patFor(['apps:write']);
    const register = `${api.issuer}/api/oauth/register`;
    for (const fields of PLAIN_HTTP) {
      const r = await send('POST', register, token, { client_name: 'plain', redirect_uris: [REDIRECT], ...fields });
      expect([fields, r.status, r.body.error]).toEqual([fields, 400, 'invalid_client_metadata']);
    }
    for (const fields of ACCEPTED) {
      const r = await send('POST', register, token, { client_name: 'ok', redirect_uris: [REDIRECT], ...fields });
      expect([fields, r.status]).toEqual([fields, 201]);
    }
    const doc = (await send('POST', register, token, { client_name: 'managed', redirect_uris: [REDIRECT] })).body;
    for (const fields of PLAIN_HTTP) {
      const r = await send('PUT', doc.registration_client_uri, doc.registration_access_token, {
        client_id: doc.client_id,
        client_name: 'managed',
        redirect_uris: [REDIRECT],
        ...fields,
      });
      expect([fields, r.status, r.body.error]).toEqual([fields, 400, 'invalid_client_metadata']);
    }
  }, 60_000);
});

describe('the jwks_uri fetch', () => {
  let key: { kid: string; privateKey: CryptoKey; jwk: JWK };
  const servers: http.Server[] = [];
  /** A JWKS endpoint on 127.0.0.1 serving the test key; its port. */
  async function jwksServer(): Promise<number> {
    const server = http.createServer((_req, res) => res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: [key.jwk] })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return (server.address() as AddressInfo).port;
  }
  beforeAll(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const kid = randomUUID();
    key = { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
  });
  afterAll(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))));

  /** Introspection of an unknown token, authenticated with a private_key_jwt assertion checked against `jwksUri`. */
  async function authenticate(target: ApiUnderTest, jwksUri: string): Promise<{ status: number; body: Json }> {
    const { client } = await createClient(target.deps.store, {
      name: 'jwks_uri RP',
      redirectUris: [{ type: 'equals', value: REDIRECT }],
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwksUri,
      idTokenSignedResponseAlg: 'RS256',
    });
    const iat = Math.floor(Date.now() / 1000);
    const targetIssuer = target.deps.config.issuer;
    const jwt = await new SignJWT({ iss: client._id, sub: client._id, aud: targetIssuer, iat, exp: iat + 60, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid })
      .sign(key.privateKey);
    const res = await fetch(`${targetIssuer}/api/oauth/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'unknown-token', client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_assertion: jwt }),
    });
    return json(res);
  }

  it('reaches an internal JWKS only through an entry for jwks_uri with its host and port', async () => {
    const admittedPort = await jwksServer();
    const webhooksOnlyPort = await jwksServer();
    const scoped = await startTestApi({
      ...testDatabase('outbound_uris').env,
      OUTBOUND_ALLOWLIST: `jwks_uri=127.0.0.1:${admittedPort},webhooks=127.0.0.1:${webhooksOnlyPort},webhooks=localhost:*`,
    });
    try {
      expect(await authenticate(scoped, `http://127.0.0.1:${admittedPort}/jwks`)).toEqual({ status: 200, body: { active: false } });
      for (const uri of [`http://127.0.0.1:${webhooksOnlyPort}/jwks`, `http://localhost:${admittedPort}/jwks`]) {
        const refused = await authenticate(scoped, uri);
        expect([uri, refused.status, refused.body.error]).toEqual([uri, 400, 'invalid_client']);
        expect(refused.body.error_description).toBe('jwks_uri could not be fetched (refused)');
      }
    } finally {
      await scoped.stop();
    }
  }, 60_000);

  it('tells the client the kind of failure only: no system message, no internal address', async () => {
    const cases: Array<[string, string]> = [
      ['https://10.0.0.9/jwks', 'refused'], // an internal address outside the allow-list
      ['http://127.0.0.1:1/jwks', 'unreachable'], // admitted, nothing listens there
    ];
    for (const [uri, kind] of cases) {
      const r = await authenticate(api, uri);
      expect([uri, r.status, r.body.error, r.body.error_description]).toEqual([uri, 400, 'invalid_client', `jwks_uri could not be fetched (${kind})`]);
    }
  }, 60_000);
});
