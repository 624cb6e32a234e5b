// The device authorization grant (RFC 8628) over HTTP: the device_authorization
// endpoint, polling (pending, slow_down, denied, expired), the /device page with
// sign-in and consent, single redemption through the DeviceAuthorization
// workflow (run by the test worker), and what that workflow shows and keeps.
import type { Client } from '@temporalio/client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { RunningApi } from '../../../api/server.js';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { hashSecret, newSecret } from '../../../lib/security/secrets.js';
import { findConsent } from '../../../lib/store/consents.js';
import { findDeviceCode } from '../../../lib/store/device-codes.js';
import { SearchAttributes } from '../../../lib/temporal/search-attributes.js';
import { deviceWorkflowId } from '../../../lib/model/device-authorization.js';
import { familyWorkflowId } from '../../../lib/model/refresh-family.js';
import type { NewClientInput } from '../../../lib/model/clients.js';
import { useTestApi, eventually, startTestApi, type Json } from '../../support/harness.js';
import { skipTime } from '../../support/clock.js';
import { postForm } from '../../support/http.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';
import { testDatabase } from '../../support/database.js';
import { runCli } from '../../support/cli.js';

const PASSWORD = 'device flow password';
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

let temporal: Client;

const api = useTestApi();
beforeAll(async () => {
  // The api's own Temporal client (closed by api.stop()).
  temporal = api.deps.temporal.client;
});

const RP: NewClientInput = {
  name: 'Device RP',
  redirectUris: [{ value: 'https://device.example/cb' }],
  allowedScopes: [
    'openid',
    'profile',
    'email',
    'offline_access',
    'site:user:read',
    'site:team:read',
    'teams:read',
    'team:read',
    'team:abc:read',
    'admin:users:read',
  ],
  idTokenSignedResponseAlg: 'RS256',
  isVerified: true,
};
const USER = { prefix: 'device', password: PASSWORD, name: 'Device User' };

const post = (path: string, body: Record<string, string>, headers: Record<string, string> = {}, base = api.issuer) => postForm(base, path, body, headers);

const authorizeDevice = (rp: FixtureRp, params: Record<string, string>, base = api.issuer) =>
  post('/api/oauth/device_authorization', { ...rp.body, ...params }, rp.headers, base);

async function startDevice(rp: FixtureRp, params: Record<string, string> = { scope: 'openid profile' }, base = api.issuer) {
  const r = await authorizeDevice(rp, params, base);
  expect(r.res.status).toBe(200);
  return r.body as { device_code: string; user_code: string; verification_uri_complete: string };
}

const poll = (rp: FixtureRp, deviceCode: string, extra: Record<string, string> = {}) =>
  post('/api/oauth/token', { ...rp.body, grant_type: GRANT, device_code: deviceCode, ...extra }, rp.headers);

/** A person at /device: enters the code, signs in when asked, and reaches the device consent page. */
async function openConsent(agent: HttpUser, typed: string, email: string) {
  const entry = await agent.get('/device');
  let step = await agent.submit(await entry.res.text(), '/device', { user_code: typed });
  if (step.url.includes('/login')) step = await agent.signIn(step, email, PASSWORD);
  expect(new URL(step.url).pathname).toBe('/device/consent');
  return step.res.text();
}

/** The whole answer at /device; resolves once the workflow's projection shows it. */
async function answer(deviceCode: string, userCode: string, email: string, decision: 'allow' | 'deny', agent = new HttpUser(api.issuer)) {
  const consent = await openConsent(agent, userCode, email);
  const done = await agent.submit(consent, '/device/consent', { decision });
  expect(done.res.status).toBe(200);
  expect(await done.res.text()).toContain('You can return to your device');
  const expected = decision === 'allow' ? 'approved' : 'denied';
  await eventually(async () => expect((await findDeviceCode(api.deps.store, hashSecret(deviceCode)))?.status).toBe(expected));
  return { consent, agent };
}

const handleFor = (deviceCode: string) => temporal.workflow.getHandle(deviceWorkflowId(hashSecret(deviceCode)));

describe('device authorization endpoint', () => {
  it('answers with a device code, a user code and where to enter it', async () => {
    const rp = await newRp(api.deps, RP);
    const { res, body } = await authorizeDevice(rp, { scope: 'openid profile' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(body).toEqual({
      device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user_code: expect.stringMatching(USER_CODE),
      verification_uri: `${api.issuer}/device`,
      verification_uri_complete: `${api.issuer}/device?user_code=${body.user_code}`,
      expires_in: 600,
      interval: 5,
    });
    const doc = (await findDeviceCode(api.deps.store, hashSecret(body.device_code)))!;
    expect(doc).toMatchObject({ clientId: rp.id, scope: ['openid', 'profile'], status: 'pending', userCodeKey: body.user_code.replace('-', '') });

    const discovery = (await (await fetch(`${api.issuer}/.well-known/openid-configuration`)).json()) as Json;
    expect(discovery.device_authorization_endpoint).toBe(`${api.issuer}/api/oauth/device_authorization`);
    expect(discovery.grant_types_supported).toContain(GRANT);
  });

  it.each([
    ['no scope', 'invalid_scope', {}],
    ['an unknown scope', 'invalid_scope', { scope: 'openid launch' }],
    ['a scope the client may not ask for', 'invalid_scope', { scope: 'openid apps:read' }],
    ['a site scope', 'invalid_scope', { scope: 'openid site:user:read' }],
    ['a single-team scope', 'invalid_scope', { scope: 'openid team:read' }],
    ['an aggregate team scope', 'invalid_scope', { scope: 'openid teams:read' }],
    ['a cross-instance team scope', 'invalid_scope', { scope: 'openid site:team:read' }],
    ['a bound team scope', 'invalid_scope', { scope: 'team:abc:read' }],
    ['PKCE plain', 'invalid_request', { scope: 'openid', code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }],
    ['a malformed code_challenge', 'invalid_request', { scope: 'openid', code_challenge: 'short', code_challenge_method: 'S256' }],
    ['a code_challenge without method', 'invalid_request', { scope: 'openid', code_challenge: 'a'.repeat(43) }],
  ])('refuses %s with %s', async (_name, error, params) => {
    const rp = await newRp(api.deps, RP);
    const r = await authorizeDevice(rp, params);
    expect(r.res.status).toBe(400);
    expect(r.res.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toEqual({ error, error_description: expect.any(String) });
  });

  it('authenticates clients like the token endpoint', async () => {
    const rp = await newRp(api.deps, RP);
    const unknown = await post('/api/oauth/device_authorization', { client_id: 'nope', scope: 'openid' });
    expect(unknown.res.status).toBe(400);
    expect(unknown.body.error).toBe('invalid_client');
    const noSecret = await post('/api/oauth/device_authorization', { client_id: rp.id, scope: 'openid' });
    expect(noSecret.body.error).toBe('invalid_client');
    const wrongBasic = await post(
      '/api/oauth/device_authorization',
      { scope: 'openid' },
      { authorization: `Basic ${Buffer.from(`${rp.id}:wrong`).toString('base64')}` },
    );
    expect(wrongBasic.res.status).toBe(401);
    expect(wrongBasic.res.headers.get('www-authenticate')).toMatch(/^Basic realm="keyflow"/);
    const publicRp = await newRp(api.deps, { ...RP, public: true });
    expect((await authorizeDevice(publicRp, { scope: 'openid' })).res.status).toBe(200);
    const get = await fetch(`${api.issuer}/api/oauth/device_authorization`);
    expect(get.status).toBe(405);
    const json = await fetch(`${api.issuer}/api/oauth/device_authorization`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...rp.headers },
      body: '{"scope":"openid"}',
    });
    expect(json.status).toBe(400);
  });
});

describe('polling the token endpoint', () => {
  it('answers authorization_pending, then slow_down with a growing interval', async () => {
    const rp = await newRp(api.deps, RP);
    const { device_code } = await startDevice(rp);
    const first = await poll(rp, device_code);
    expect(first.res.status).toBe(400);
    expect(first.res.headers.get('cache-control')).toBe('no-store');
    expect(first.body).toEqual({ error: 'authorization_pending', error_description: expect.any(String) });
    expect((await poll(rp, device_code)).body.error).toBe('slow_down');
    expect((await poll(rp, device_code)).body.error).toBe('slow_down');
    // Two slow_downs: the interval is 15 s now (RFC 8628 §3.5), so a poll 10 s on is early again (a third slow_down: 20 s)…
    skipTime(10_100);
    expect((await poll(rp, device_code)).body.error).toBe('slow_down');
    // …and one 20 s after the first is in time.
    skipTime(10_100);
    expect((await poll(rp, device_code)).body.error).toBe('authorization_pending');
  });

  it('paces a code issued before polls were paced by budget (its pacing document under the hash alone) by its interval', async () => {
    const rp = await newRp(api.deps, RP);
    const { device_code } = await startDevice(rp);
    const hash = hashSecret(device_code);
    await api.deps.store.devicePolls.deleteOne({ _id: `${hash}:${rp.client._id}` });
    await api.deps.store.devicePolls.insertOne({ _id: hash, interval: 5, lastPollAt: null, expiresAt: new Date(Date.now() + 600_000) });
    expect((await poll(rp, device_code)).body.error).toBe('authorization_pending');
    expect((await poll(rp, device_code)).body.error).toBe('slow_down');
    skipTime(10_100);
    expect((await poll(rp, device_code)).body.error).toBe('authorization_pending');
  });

  it("refuses unknown device codes, another client's, and requests without one", async () => {
    const rp = await newRp(api.deps, RP);
    const other = await newRp(api.deps, RP);
    const { device_code } = await startDevice(rp);
    expect((await poll(rp, newSecret())).body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    expect((await poll(other, device_code)).body.error).toBe('invalid_grant');
    const missing = await post('/api/oauth/token', { grant_type: GRANT }, rp.headers);
    expect(missing.body.error).toBe('invalid_request');
    // Nothing was recorded for the other client's poll: the owner's first poll is not slow_down.
    expect((await poll(rp, device_code)).body.error).toBe('authorization_pending');
  });
});

describe('approval on the /device page', () => {
  it('issues tokens once, with a refresh token for offline_access, after the user allows', async () => {
    const rp = await newRp(api.deps, RP);
    const { email, user } = await newUser(api.deps, USER);
    const { device_code, user_code } = await startDevice(rp, { scope: 'openid profile offline_access' });
    expect((await poll(rp, device_code)).body.error).toBe('authorization_pending');
    const { consent } = await answer(device_code, user_code, email, 'allow');
    expect(consent).toContain('Device RP');
    expect(consent).toContain('Verified');
    expect(consent).toContain(user_code);
    expect(consent).toContain('Stay signed in when you are not using the app');
    expect((await findConsent(api.deps.store, user._id, rp.id))!.scopes).toEqual(['openid', 'profile', 'offline_access']);

    // Approved: answered at once, however soon after the last poll.
    const { res, body } = await poll(rp, device_code);
    expect(res.status).toBe(200);
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      id_token: expect.any(String),
      refresh_token: expect.any(String),
      scope: 'openid profile offline_access',
    });
    const jwks = createRemoteJWKSet(new URL(`${api.issuer}/.well-known/jwks.json`));
    const id = await jwtVerify(body.id_token, jwks, { issuer: api.issuer, audience: rp.id, algorithms: ['RS256'] });
    expect(id.payload).toMatchObject({ sub: user._id, acr: 'pwd', amr: ['pwd'], name: 'Device User', sid: expect.any(String), auth_time: expect.any(Number) });
    expect(id.payload.nonce).toBeUndefined();
    const info = await fetch(`${api.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${body.access_token}` } });
    expect(info.status).toBe(200);

    expect((await poll(rp, device_code)).body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    const refreshed = await post('/api/oauth/token', { ...rp.body, grant_type: 'refresh_token', refresh_token: body.refresh_token }, rp.headers);
    expect(refreshed.res.status).toBe(200);
    // The refresh family was started by the device workflow's redeem update (one Temporal call for the token
    // request), as an abandoned child that outlives it.
    const grantId = JSON.parse(Buffer.from(body.access_token.split('.')[1], 'base64url').toString()).grant_id as string;
    const family = await temporal.workflow.getHandle(familyWorkflowId(grantId)).describe();
    expect(family.status.name).toBe('RUNNING');
    expect(family.parentExecution?.workflowId).toBe(deviceWorkflowId(hashSecret(device_code)));
    expect(family.typedSearchAttributes.get(SearchAttributes.userId)).toBe(user._id);
    // The flow is over: the code no longer opens the consent page.
    const page = await new HttpUser(api.issuer).get(`/device/consent?user_code=${user_code}`);
    expect(page.res.status).toBe(400);
  });

  it('lets exactly one of several concurrent polls redeem the approval', async () => {
    const rp = await newRp(api.deps, RP);
    const { email } = await newUser(api.deps, USER);
    const { device_code, user_code } = await startDevice(rp);
    await answer(device_code, user_code, email, 'allow');
    const results = await Promise.all([1, 2, 3].map(() => poll(rp, device_code)));
    expect(results.map((r) => r.res.status).sort()).toEqual([200, 400, 400]);
    for (const r of results.filter((x) => x.res.status === 400)) expect(r.body.error).toBe('invalid_grant');
    expect(results.find((r) => r.res.status === 200)!.body.refresh_token).toBeUndefined();
  });

  it('answers access_denied, and keeps answering it, after the user denies', async () => {
    const rp = await newRp(api.deps, RP);
    const { email } = await newUser(api.deps, USER);
    const { device_code, user_code } = await startDevice(rp);
    await answer(device_code, user_code, email, 'deny');
    for (let i = 0; i < 2; i++) expect((await poll(rp, device_code)).body).toEqual({ error: 'access_denied', error_description: expect.any(String) });
    await eventually(async () => expect((await handleFor(device_code).describe()).status.name).toBe('COMPLETED'));
    expect((await handleFor(device_code).describe()).typedSearchAttributes.get(SearchAttributes.state)).toBe('denied');
  });

  it('matches the user code whatever its case, dashes and spaces', async () => {
    const rp = await newRp(api.deps, RP);
    const { email } = await newUser(api.deps, USER);
    const agent = new HttpUser(api.issuer);
    const first = await startDevice(rp);
    const lower = first.user_code.toLowerCase().replace('-', '');
    expect(await openConsent(agent, lower, email)).toContain(first.user_code);
    const second = await startDevice(rp);
    const spaced = ` ${second.user_code.slice(0, 2)} ${second.user_code.slice(2).toLowerCase()} `;
    expect(await openConsent(agent, spaced, email)).toContain(second.user_code);
  });

  it('prefills the code from verification_uri_complete and shows the page again for a wrong code', async () => {
    const rp = await newRp(api.deps, RP);
    const { user_code, verification_uri_complete } = await startDevice(rp);
    const agent = new HttpUser(api.issuer);
    const prefilled = await agent.get(verification_uri_complete);
    const html = await prefilled.res.text();
    expect(html).toContain('<label for="user_code">Code</label>');
    expect(html).toContain(`value="${user_code}"`);
    expect(html).toContain('Continue');
    const wrong = await agent.submit(html, '/device', { user_code: user_code === 'BBBB-BBBB' ? 'CCCC-CCCC' : 'BBBB-BBBB' });
    expect(wrong.res.status).toBe(400);
    const page = await wrong.res.text();
    expect(page).toContain('role="alert"');
    expect(page).toContain('<form method="post" action="/device">');
    const garbage = await agent.submit(page, '/device', { user_code: '<script>' });
    expect(garbage.res.status).toBe(400);
    expect(await garbage.res.text()).not.toContain('<script>');
  });

  it('refuses a form without its CSRF token', async () => {
    const rp = await newRp(api.deps, RP);
    const { user_code } = await startDevice(rp);
    const res = await new HttpUser(api.issuer).request('/device', {
      method: 'POST',
      body: new URLSearchParams({ user_code }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
  });

  it('lets only admins allow admin scopes', async () => {
    const rp = await newRp(api.deps, RP);
    const { email } = await newUser(api.deps, USER);
    const { user_code } = await startDevice(rp, { scope: 'openid admin:users:read' });
    const agent = new HttpUser(api.issuer);
    const entry = await agent.get('/device');
    let step = await agent.submit(await entry.res.text(), '/device', { user_code });
    step = await agent.signIn(step, email, PASSWORD);
    expect(step.res.status).toBe(403);
  });

  it('returns from sign-in only to a /device path', async () => {
    const { email } = await newUser(api.deps, USER);
    const agent = new HttpUser(api.issuer);
    const login = await agent.get(`/login?next=${encodeURIComponent('https://evil.example/device')}`);
    const after = await agent.signIn(login, email, PASSWORD);
    expect(after.external).toBeUndefined();
    expect(new URL(after.url).pathname).not.toMatch(/^\/device/);
  });
});

describe('PKCE', () => {
  it('refuses a missing or wrong code_verifier without using the approval up', async () => {
    const rp = await newRp(api.deps, { ...RP, public: true });
    const { email } = await newUser(api.deps, USER);
    const verifier = newSecret() + 'pkce';
    const { device_code, user_code } = await startDevice(rp, { scope: 'openid', code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' });
    await answer(device_code, user_code, email, 'allow');
    expect((await poll(rp, device_code)).body.error).toBe('invalid_grant');
    expect((await poll(rp, device_code, { code_verifier: newSecret() + 'wrong' })).body.error).toBe('invalid_grant');
    expect((await poll(rp, device_code, { code_verifier: 'too-short' })).body.error).toBe('invalid_request');
    const ok = await poll(rp, device_code, { code_verifier: verifier });
    expect(ok.res.status).toBe(200);
  });
});

describe('expiry', () => {
  let shortApi: RunningApi;
  beforeAll(async () => {
    shortApi = await startTestApi({ DEVICE_CODE_TTL_SECONDS: '2' });
  });
  afterAll(() => shortApi.stop());

  it('answers expired_token once expires_in has passed, approved or not', async () => {
    const rp = await newRp(api.deps, RP);
    const { email } = await newUser(api.deps, USER);
    // Signed in beforehand, so that the approval fits easily into the 2 seconds.
    const agent = new HttpUser(api.issuer);
    await agent.signIn(await agent.get('/login'), email, PASSWORD);
    const started = Date.now();
    const [unanswered, approved] = await Promise.all(
      [1, 2].map(async () => (await authorizeDevice(rp, { scope: 'openid' }, shortApi.deps.config.issuer)).body),
    );
    expect(unanswered.expires_in).toBe(2);
    await answer(approved.device_code, approved.user_code, email, 'allow', agent);
    skipTime(Math.max(0, started + 2_500 - Date.now()));
    for (const { device_code } of [unanswered, approved]) {
      expect((await poll(rp, device_code)).body).toEqual({ error: 'expired_token', error_description: expect.any(String) });
      await eventually(async () => expect((await handleFor(device_code).describe()).typedSearchAttributes.get(SearchAttributes.state)).toBe('expired'));
      expect((await poll(rp, device_code)).body.error).toBe('expired_token');
    }
    const page = await new HttpUser(api.issuer).get(`/device/consent?user_code=${unanswered.user_code}`);
    expect(page.res.status).toBe(400);
  });
});

describe('the DeviceAuthorization workflow', () => {
  it('shows client, user and state as search attributes, and keeps no code or token in its history', async () => {
    const rp = await newRp(api.deps, RP);
    const { email, user } = await newUser(api.deps, USER);
    const { device_code, user_code } = await startDevice(rp, { scope: 'openid offline_access' });
    const handle = handleFor(device_code);
    expect(handle.workflowId).toBe(`device:${hashSecret(device_code).slice(0, 32)}`);
    const pending = await handle.describe();
    expect(pending.typedSearchAttributes.get(SearchAttributes.clientId)).toBe(rp.id);
    expect(pending.typedSearchAttributes.get(SearchAttributes.state)).toBe('pending');

    await answer(device_code, user_code, email, 'allow');
    const approved = await handle.describe();
    expect(approved.typedSearchAttributes.get(SearchAttributes.userId)).toBe(user._id);
    expect(approved.typedSearchAttributes.get(SearchAttributes.state)).toBe('approved');
    const { body } = await poll(rp, device_code);
    expect(body.refresh_token).toEqual(expect.any(String));
    await eventually(async () => expect((await handle.describe()).status.name).toBe('COMPLETED'));
    const done = await handle.describe();
    expect(done.typedSearchAttributes.get(SearchAttributes.state)).toBe('redeemed');
    expect(done.typedSearchAttributes.get(SearchAttributes.clientId)).toBe(rp.id);
    expect(done.typedSearchAttributes.get(SearchAttributes.userId)).toBe(user._id);

    // The history's JSON carries payloads as base64: decoded here, so that a value inside any payload would be found.
    const history = JSON.stringify(await handle.fetchHistory(), (key, value) =>
      key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
    );
    expect(history).toContain(hashSecret(device_code)); // the decoding works: the input is readable
    expect(history).toContain(user._id);
    for (const secret of [device_code, user_code, user_code.replace('-', ''), body.access_token, body.refresh_token, body.id_token]) {
      expect(history).not.toContain(secret);
    }
  });
});

describe('wrong user codes', () => {
  it('are limited per client address (RFC 8628 §5.1)', async () => {
    // An api with a database of its own: using up 127.0.0.1's allowance must not
    // block the other test files that enter codes from the same address.
    const limited = await startTestApi(testDatabase('device_limit').env);
    try {
      const rp = await newRp(limited.deps, { name: 'Limit RP', redirectUris: [{ value: 'https://device.example/cb' }], allowedScopes: ['openid'] });
      const agent = new HttpUser(limited.url);
      let page = await (await agent.get('/device')).res.text();
      let status = 0;
      for (let i = 0; i < 25 && status !== 429; i++) {
        const step = await agent.submit(page, '/device', { user_code: 'BBBB-BBBB' });
        status = step.res.status;
        page = await step.res.text();
      }
      expect(status).toBe(429);
      // Now even a valid code is refused until the window ends.
      const { user_code } = await startDevice(rp, { scope: 'openid' }, limited.url);
      expect((await agent.submit(page, '/device', { user_code })).res.status).toBe(429);
    } finally {
      await limited.deps.store.db.dropDatabase();
      await limited.stop();
    }
  });
});

describe('a device-only client (grant types without authorization_code)', () => {
  it('is created with the CLI without a redirect URI, completes a device flow, and is refused at the authorization endpoint without a redirect', async () => {
    const made = await runCli([
      'clients',
      'create',
      '--name',
      'TV app',
      '--public',
      '--grant-type',
      'device_code',
      '--grant-type',
      'refresh_token',
      '--scope',
      'openid profile offline_access',
    ]);
    expect([made.code, made.stderr.replace(/^note: .*\n/gm, '')]).toEqual([0, '']);
    const client = JSON.parse(made.stdout) as { client_id: string; redirect_uris: unknown[] };
    expect(client.redirect_uris).toEqual([]);
    const rp = { body: { client_id: client.client_id }, headers: {} } as unknown as FixtureRp;

    const { email } = await newUser(api.deps, USER);
    const { device_code, user_code } = await startDevice(rp, { scope: 'openid profile offline_access' });
    await answer(device_code, user_code, email, 'allow');
    const { res, body } = await poll(rp, device_code);
    expect([res.status, body.token_type]).toEqual([200, 'Bearer']);
    const refreshed = await post('/api/oauth/token', { client_id: client.client_id, grant_type: 'refresh_token', refresh_token: body.refresh_token });
    expect(refreshed.res.status).toBe(200);

    // The authorization endpoint: an error page, never a redirect, whatever redirect_uri it names.
    const query = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: 'https://tv.example/cb', scope: 'openid' });
    query.set('code_challenge', 'a'.repeat(43));
    query.set('code_challenge_method', 'S256');
    const page = await fetch(`${api.issuer}/api/oauth/authorize?${query}`, { redirect: 'manual' });
    expect([page.status, page.headers.get('location')]).toEqual([400, null]);
    expect(await page.text()).toContain('not registered for sign-in through the browser');
    // PAR and the token endpoint's authorization_code grant refuse it too.
    const pushed = await post('/api/oauth/par', Object.fromEntries(query));
    expect([pushed.res.status, pushed.body.error]).toEqual([400, 'unauthorized_client']);
    const code = await post('/api/oauth/token', {
      client_id: client.client_id,
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: 'https://tv.example/cb',
    });
    expect([code.res.status, code.body.error]).toEqual([400, 'unauthorized_client']);
  });
});
