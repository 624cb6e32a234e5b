// Token exchange (RFC 8693) over HTTP, Keyflow's rules: a token issued to
// the requester or carrying app:<requester>:*; scope a subset; audience limited
// by resource/audience, each one the requester lists in allowedResources;
// never refreshable; issued_token_type.
import type { NewClientInput } from '../../../lib/model/clients.js';
import { createUser } from '../../../lib/store/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { codeFlowTokens } from '../../support/token-flow.js';
import { getUserinfo, jwtClaims, postForm } from '../../support/http.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';

const PASSWORD = 'token exchange password';
const REDIRECT = 'https://exchange-rp.example/cb';
const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const API = 'https://api.example/';
const BILLING = 'https://billing.example/';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

const api = useTestApi();

const RP: NewClientInput = {
  name: 'Exchange RP',
  redirectUris: [{ type: 'equals', value: REDIRECT }],
  allowedScopes: ['openid', 'profile', 'email', 'offline_access'],
  allowedResources: [API, BILLING],
  idTokenSignedResponseAlg: 'RS256',
};

const post = (path: string, body: Record<string, string> | [string, string][], headers: Record<string, string> = {}) =>
  postForm(api.issuer, path, body, headers);

const userinfo = (accessToken: string) => getUserinfo(api.issuer, accessToken);

/** A new user authorizes `rp` for `scope`; returns the token response. */
async function tokensFor(rp: FixtureRp, scope: string) {
  const email = uniqueEmail('exchange');
  const user = await createUser(api.deps.store, { email, password: PASSWORD });
  const { res, body } = await codeFlowTokens(api.issuer, rp, REDIRECT, scope, email, PASSWORD);
  expect(res.status).toBe(200);
  return { tokens: body, userId: user._id };
}

const exchange = (rp: FixtureRp, subjectToken: string, extra: [string, string][] = []) =>
  post('/api/oauth/token', [['grant_type', GRANT], ['subject_token', subjectToken], ['subject_token_type', ACCESS_TOKEN], ...extra], rp.headers);

describe('token exchange', () => {
  let rp: FixtureRp;
  let subject: Json;
  let userId: string;
  beforeAll(async () => {
    rp = await newRp(api.deps, RP);
    ({ tokens: subject, userId } = await tokensFor(rp, 'openid profile offline_access'));
  });

  it('exchanges a token issued to the client for a narrower one with a limited audience', async () => {
    const { res, body } = await exchange(rp, subject.access_token, [
      ['scope', 'openid'],
      ['resource', API],
      ['audience', BILLING],
    ]);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(body).toEqual({ access_token: expect.any(String), issued_token_type: ACCESS_TOKEN, token_type: 'Bearer', expires_in: 3600, scope: 'openid' });
    const claims = jwtClaims(body.access_token);
    const original = jwtClaims(subject.access_token);
    expect(claims).toMatchObject({ sub: userId, client_id: rp.id, scope: 'openid', grant_id: original.grant_id, aud: [api.issuer, API, BILLING] });
    expect(claims.jti).not.toBe(original.jti);
    expect(claims).not.toHaveProperty('act');
    // Still a Keyflow access token: UserInfo (openid) accepts it.
    expect((await userinfo(body.access_token)).status).toBe(200);
  });

  it('defaults to the subject token scope without offline_access, the issuer as audience, and no refresh token', async () => {
    const { res, body } = await exchange(rp, subject.access_token);
    expect(res.status).toBe(200);
    expect(body.scope).toBe('openid profile');
    expect(body).not.toHaveProperty('refresh_token');
    expect(jwtClaims(body.access_token).aud).toBe(api.issuer);
    // Asking for offline_access explicitly still yields no refresh token.
    const offline = await exchange(rp, subject.access_token, [['scope', 'openid offline_access']]);
    expect(offline.res.status).toBe(200);
    expect(offline.body.scope).toBe('openid');
    expect(offline.body).not.toHaveProperty('refresh_token');
  });

  it('cannot be refreshed: nothing it returns is a refresh token', async () => {
    const { body } = await exchange(rp, subject.access_token, [['scope', 'openid offline_access']]);
    expect(body.refresh_token).toBeUndefined();
    for (const attempt of [body.access_token, subject.access_token, 'anything']) {
      const r = await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: attempt }, rp.headers);
      expect([r.res.status, r.body.error]).toEqual([400, 'invalid_grant']);
    }
  });

  it('refuses a resource or audience the requester does not list: invalid_target', async () => {
    const listsApi = await newRp(api.deps, { ...RP, allowedResources: [API] });
    const { tokens } = await tokensFor(listsApi, 'openid profile');
    for (const extra of [
      [['resource', BILLING]],
      [['audience', BILLING]],
      [
        ['resource', API],
        ['audience', 'billing'],
      ],
      [['audience', 'https://elsewhere.example/']],
    ] as [string, string][][]) {
      const r = await exchange(listsApi, tokens.access_token, extra);
      expect([extra, r.res.status, r.body]).toEqual([extra, 400, { error: 'invalid_target', error_description: expect.any(String) }]);
    }
    const listsNone = await newRp(api.deps, { ...RP, allowedResources: [] });
    const own = await tokensFor(listsNone, 'openid');
    expect((await exchange(listsNone, own.tokens.access_token, [['audience', API]])).body.error).toBe('invalid_target');
    // What it lists is accepted, as resource or audience.
    const ok = await exchange(listsApi, tokens.access_token, [['audience', API]]);
    expect(ok.res.status).toBe(200);
    expect(jwtClaims(ok.body.access_token).aud).toEqual([api.issuer, API]);
  });

  it('refuses a scope wider than the subject token: invalid_scope', async () => {
    const r = await exchange(rp, subject.access_token, [['scope', 'openid email']]);
    expect([r.res.status, r.body]).toEqual([400, { error: 'invalid_scope', error_description: expect.any(String) }]);
  });

  it('refuses a token of another client that does not name the requester: invalid_grant', async () => {
    const other = await newRp(api.deps, RP);
    const r = await exchange(other, subject.access_token);
    expect([r.res.status, r.body]).toEqual([400, { error: 'invalid_grant', error_description: expect.any(String) }]);
  });

  it('accepts a token of another client that carries app:<requester>:*', async () => {
    const requester = await newRp(api.deps, RP);
    const owner = await newRp(api.deps, { ...RP, allowedScopes: ['openid', 'profile', `app:${requester.id}:*`] });
    const { tokens, userId: sub } = await tokensFor(owner, `openid profile app:${requester.id}:*`);
    const { res, body } = await exchange(requester, tokens.access_token, [['scope', 'openid profile']]);
    expect(res.status).toBe(200);
    expect(jwtClaims(body.access_token)).toMatchObject({
      sub,
      client_id: requester.id,
      scope: 'openid profile',
      grant_id: jwtClaims(tokens.access_token).grant_id,
    });
    // A third client is not named by it.
    const third = await newRp(api.deps, RP);
    expect((await exchange(third, tokens.access_token)).body.error).toBe('invalid_grant');
  });

  it('gives the requester only scopes it may hold: dropped from the default, invalid_scope when asked for', async () => {
    const requester = await newRp(api.deps, { ...RP, allowedScopes: ['openid'] });
    const owner = await newRp(api.deps, { ...RP, allowedScopes: ['openid', 'profile', 'email', `app:${requester.id}:*`] });
    const { tokens } = await tokensFor(owner, `openid profile email app:${requester.id}:*`);
    const implied = await exchange(requester, tokens.access_token);
    expect(implied.res.status).toBe(200);
    expect(implied.body.scope).toBe('openid');
    expect(jwtClaims(implied.body.access_token).scope).toBe('openid');
    for (const asked of ['openid profile', 'email', `openid app:${requester.id}:*`]) {
      const r = await exchange(requester, tokens.access_token, [['scope', asked]]);
      expect([asked, r.res.status, r.body]).toEqual([asked, 400, { error: 'invalid_scope', error_description: expect.stringContaining('may not hold') }]);
    }
    // Nothing it may hold: invalid_scope.
    const holdsNothing = await newRp(api.deps, { ...RP, allowedScopes: ['offline_access'] });
    const other = await newRp(api.deps, { ...RP, allowedScopes: ['openid', `app:${holdsNothing.id}:*`] });
    const named = await tokensFor(other, `openid app:${holdsNothing.id}:*`);
    expect((await exchange(holdsNothing, named.tokens.access_token)).body.error).toBe('invalid_scope');
  });

  it('refuses other subject_token_types, a missing subject_token, actor tokens: invalid_request', async () => {
    for (const type of [
      'urn:ietf:params:oauth:token-type:refresh_token',
      'urn:ietf:params:oauth:token-type:id_token',
      'urn:ietf:params:oauth:token-type:jwt',
    ]) {
      const r = await post('/api/oauth/token', { grant_type: GRANT, subject_token: subject.access_token, subject_token_type: type }, rp.headers);
      expect([r.res.status, r.body]).toEqual([400, { error: 'invalid_request', error_description: expect.any(String) }]);
    }
    expect((await post('/api/oauth/token', { grant_type: GRANT, subject_token_type: ACCESS_TOKEN }, rp.headers)).body.error).toBe('invalid_request');
    expect(
      (
        await exchange(rp, subject.access_token, [
          ['actor_token', 'x'],
          ['actor_token_type', ACCESS_TOKEN],
        ])
      ).body.error,
    ).toBe('invalid_request');
    expect((await exchange(rp, subject.access_token, [['requested_token_type', 'urn:ietf:params:oauth:token-type:refresh_token']])).body.error).toBe(
      'invalid_request',
    );
  });

  it('refuses an invalid subject token (invalid_grant), a bad resource (invalid_target), public and unauthenticated clients', async () => {
    expect((await exchange(rp, 'not-a-token')).body.error).toBe('invalid_grant');
    expect((await exchange(rp, subject.refresh_token)).body.error).toBe('invalid_grant');
    expect((await exchange(rp, subject.access_token, [['resource', 'https://api.example/#frag']])).body.error).toBe('invalid_target');
    expect((await exchange(rp, subject.access_token, [['resource', 'relative']])).body.error).toBe('invalid_target');
    const pub = await newRp(api.deps, { ...RP, public: true });
    const r = await post('/api/oauth/token', { grant_type: GRANT, client_id: pub.id, subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN });
    expect([r.res.status, r.body.error]).toEqual([400, 'unauthorized_client']);
    const anonymous = await post('/api/oauth/token', { grant_type: GRANT, subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN });
    expect(anonymous.body.error).toBe('invalid_client');
  });

  it('belongs to the subject grant: revoking the grant revokes the exchanged token', async () => {
    const { tokens } = await tokensFor(rp, 'openid offline_access');
    const { body } = await exchange(rp, tokens.access_token, [['scope', 'openid']]);
    expect((await userinfo(body.access_token)).status).toBe(200);
    // Revoking the refresh token revokes its grant (RFC 7009 §2.1).
    const revoked = await post('/api/oauth/revoke', { token: tokens.refresh_token }, rp.headers);
    expect(revoked.res.status).toBe(200);
    expect((await userinfo(body.access_token)).status).toBe(401);
    expect((await exchange(rp, tokens.access_token)).body.error).toBe('invalid_grant');
  });

  it('is advertised in grant_types_supported', async () => {
    const doc = (await (await fetch(`${api.issuer}/.well-known/openid-configuration`)).json()) as Json;
    expect(doc.grant_types_supported).toContain(GRANT);
  });
});
