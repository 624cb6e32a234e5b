// The audit trail of authorization and tokens, each event driven through its
// real path over HTTP (the code flow with PKCE, refresh, revocation, the
// device flow, token exchange, client_credentials, the implicit flow, step-up
// and sudo windows): the record is found with its outcome, actor, subject and
// documented data keys, with the request that caused it (IP, request id), and
// no code, token or secret appears in it.
//
// Database of its own: sudo_mode_ttl_minutes is a site-wide setting. The
// retry window of rotated refresh tokens is 0, so that a replay is reuse at once.
import type { Filter } from 'mongodb';
import { generate } from 'otplib';
import type { AuditTrail } from '../../../lib/audit/audit-trail.js';
import { AUDIT_CATALOGUE, type AuditEntry, type AuditEventName } from '../../../lib/model/audit-events.js';
import { stepUpWorkflowId } from '../../../lib/model/step-up-challenge.js';
import { hashSecret, newSecret } from '../../../lib/security/secrets.js';
import { openSudoWindow, revokeSudoWindow, type SudoDeps } from '../../../lib/step-up/sudo-windows.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { insertStepUpChallenge } from '../../../lib/store/step-up.js';
import { findDeviceCode } from '../../../lib/store/device-codes.js';
import type { stepUpChallenge } from '../../../workflows/step-up-challenge.js';
import { auditRecords, awaitAuditRecord, awaitAuditRecords } from '../../support/audit.js';
import { apiNow, skipTime } from '../../support/clock.js';
import { testDatabase } from '../../support/database.js';
import { eventually, useTestApi } from '../../support/harness.js';
import { csrfOf, getUserinfo, jwtClaims, postForm } from '../../support/http.js';
import { useRegistration } from '../../support/registration.js';
import { authorizeAs, FLOW_PASSWORD, FLOW_REDIRECT, flowAuthorizeUrl, newTestRp, type TestRp } from '../../support/token-flow.js';
import { newRp } from '../../../tools/fixtures/clients.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser } from '../../../tools/fixtures/users.js';

const database = testDatabase('audit_authorization');
const api = useTestApi({ ...database.env, REFRESH_RETRY_WINDOW_SECONDS: '0' });
const { register } = useRegistration(api, 'audit-implicit-owner');

const TOKEN = '/api/oauth/token';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const STEP_UP_REDIRECT = 'https://audit-step-up.example/cb';
const ORDERS = 'https://orders.example/';

/** A request id of our own, so that a record can be matched to the request that caused it. */
const requestId = () => `audit-${newSecret().slice(0, 12)}`;
const post = (path: string, body: Record<string, string> | [string, string][], headers: Record<string, string>) => postForm(api, path, body, headers);

/** Every record's data keys are the catalogue's, and nothing secret is in it. */
function expectClean(records: AuditEntry[], secrets: (string | undefined)[]): void {
  for (const r of records) {
    const allowed = Object.keys((AUDIT_CATALOGUE[r.event] as { data?: Record<string, string> }).data ?? {});
    for (const key of Object.keys(r.data)) expect([r.event, key, allowed.includes(key)]).toEqual([r.event, key, true]);
  }
  const text = JSON.stringify(records);
  for (const s of secrets.filter((x): x is string => typeof x === 'string' && x.length > 0)) expect(text).not.toContain(s);
}

/** A JWT's signature part: what would show if the token were in a record. */
const sig = (jwt: string | undefined) => jwt?.split('.')[2];

const recordOf = (event: AuditEventName, filter: Filter<AuditEntry> = {}) => awaitAuditRecord(api.deps.store, { event, ...filter });

/** A code flow of `rp` for a new user: the code, the verifier and the user (the code not yet redeemed). */
async function authorizedCode(rp: TestRp, scope: string) {
  const { email, user } = await newUser(api.deps, { prefix: 'audit-flow', password: FLOW_PASSWORD });
  const agent = new HttpUser(api.url);
  const verifier = newSecret();
  const back = await authorizeAs(agent, flowAuthorizeUrl(api, rp, scope, verifier), email, FLOW_PASSWORD);
  const code = back.searchParams.get('code')!;
  expect(code).toBeTruthy();
  return { code, verifier, user, agent };
}

const redeem = (rp: TestRp, code: string, verifier: string, id = requestId()) =>
  post(TOKEN, { grant_type: 'authorization_code', code, redirect_uri: FLOW_REDIRECT, code_verifier: verifier }, { ...rp.auth, 'x-request-id': id });

describe('the code flow', () => {
  it('records consent.granted, code.issued, code.redeemed and token.issued, each with its request', async () => {
    const rp = await newTestRp(api);
    const { code, verifier, user } = await authorizedCode(rp, 'openid offline_access');
    const id = requestId();
    const tokens = await redeem(rp, code, verifier, id);
    expect(tokens.status).toBe(200);
    const grantId = jwtClaims(tokens.body.access_token).grant_id as string;
    const subject = { userId: user._id, clientId: rp.id };

    const consent = await recordOf('consent.granted', { 'subject.userId': user._id });
    expect(consent).toMatchObject({ outcome: 'success', actor: { type: 'user', userId: user._id }, subject, data: { client_id: rp.id } });
    expect(consent.data.scopes).toEqual(['openid', 'offline_access']);
    expect([typeof consent.ip, typeof consent.requestId]).toEqual(['string', 'string']);

    const issued = await recordOf('code.issued', { 'data.grant_id': grantId });
    expect(issued).toMatchObject({ outcome: 'success', actor: { type: 'user', userId: user._id }, subject, data: { client_id: rp.id, grant_id: grantId } });
    expect(issued.data.scopes).toEqual(['openid', 'offline_access']);
    expect([typeof issued.ip, typeof issued.requestId]).toEqual(['string', 'string']);

    const redeemed = await recordOf('code.redeemed', { 'data.grant_id': grantId });
    expect(redeemed).toMatchObject({ outcome: 'success', actor: { type: 'client', clientId: rp.id }, subject, requestId: id, ip: expect.any(String) });
    expect(redeemed.data).toEqual({ client_id: rp.id, grant_id: grantId });

    const token = await recordOf('token.issued', { 'data.grant_id': grantId });
    expect(token).toMatchObject({ outcome: 'success', actor: { type: 'client', clientId: rp.id }, subject, requestId: id, ip: expect.any(String) });
    expect(token.data).toEqual({
      client_id: rp.id,
      grant_id: grantId,
      grant_type: 'authorization_code',
      scopes: ['openid', 'offline_access'],
      resource: [],
      bound: 'none',
      refresh_token: true,
    });
    expectClean([consent, issued, redeemed, token], [code, verifier, sig(tokens.body.access_token), sig(tokens.body.id_token), tokens.body.refresh_token]);
  });

  it('records a replayed code as code.replayed (a failure): the first replay revokes the grant, a second finds it revoked', async () => {
    const rp = await newTestRp(api);
    const { code, verifier, user } = await authorizedCode(rp, 'openid');
    const first = await redeem(rp, code, verifier);
    expect(first.status).toBe(200);
    const grantId = jwtClaims(first.body.access_token).grant_id as string;
    const id = requestId();
    expect((await redeem(rp, code, verifier, id)).body.error).toBe('invalid_grant');
    expect((await redeem(rp, code, verifier)).body.error).toBe('invalid_grant');

    const replays = await auditRecords(api.deps.store, { event: 'code.replayed', 'data.grant_id': grantId });
    expect(replays.map((r) => [r.outcome, r.actor, r.subject, r.data.revoked])).toEqual([
      ['failure', { type: 'client', clientId: rp.id }, { userId: user._id, clientId: rp.id }, true],
      ['failure', { type: 'client', clientId: rp.id }, { userId: user._id, clientId: rp.id }, false],
    ]);
    expect(replays[0]).toMatchObject({ requestId: id, ip: expect.any(String), data: { client_id: rp.id, grant_id: grantId } });
    expectClean(replays, [code, verifier]);
  });
});

describe('connected apps', () => {
  it("records consent.revoked when a user removes an app's access: its tokens stop, it must ask again; another user or a form without CSRF removes nothing", async () => {
    const rp = await newTestRp(api, { name: 'Connected RP' });
    const { code, verifier, user, agent } = await authorizedCode(rp, 'openid offline_access');
    const tokens = await redeem(rp, code, verifier);
    expect(tokens.status).toBe(200);
    const page = await (await agent.get('/account/connected-apps')).res.text();
    expect(page).toContain('Connected RP');
    const action = `/account/connected-apps/${encodeURIComponent(rp.id)}/remove`;

    // Without the page's CSRF token: refused, nothing removed.
    const forged = await agent.request(action, { method: 'POST', body: new URLSearchParams({ csrf: 'x' }) });
    expect(forged.status).toBe(400);
    // Another user, signed in, naming this app: they never allowed it, so nothing of ours goes.
    const { email: otherEmail } = await newUser(api.deps, { prefix: 'audit-other', password: FLOW_PASSWORD });
    const other = new HttpUser(api.url);
    await other.signIn(await other.get('/login'), otherEmail, FLOW_PASSWORD);
    const otherPage = await (await other.get('/account/connected-apps')).res.text();
    expect(otherPage).toContain('You have not allowed any app.');
    const otherCsrf = csrfOf(await (await other.get('/account/sessions')).res.text());
    const tried = await other.request(action, { method: 'POST', body: new URLSearchParams({ csrf: otherCsrf }) });
    expect(await tried.text()).toContain('That app had no access to remove.');
    expect((await getUserinfo(api, tokens.body.access_token)).status).toBe(200);
    expect(await auditRecords(api.deps.store, { event: 'consent.revoked' })).toEqual([]);

    const removed = await agent.submit(page, action, {});
    expect(await removed.res.text()).toContain("That app's access is removed.");
    const record = await recordOf('consent.revoked', { 'subject.userId': user._id });
    expect(record).toMatchObject({
      outcome: 'success',
      actor: { type: 'user', userId: user._id },
      subject: { userId: user._id, clientId: rp.id },
      data: { client_id: rp.id, grants: 1 },
      ip: expect.any(String),
    });
    expectClean([record], [code, verifier, tokens.body.refresh_token, sig(tokens.body.access_token)]);
    // Its tokens stop at once, and the next authorization asks for consent again.
    expect((await getUserinfo(api, tokens.body.access_token)).status).toBe(401);
    const refreshed = await post(TOKEN, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, rp.auth);
    expect([refreshed.status, refreshed.body.error]).toEqual([400, 'invalid_grant']);
    const again = await agent.get(flowAuthorizeUrl(api, rp, 'openid', newSecret()));
    expect(await again.res.text()).toContain('Allow');
  });
});

describe('refresh tokens', () => {
  it('summarises rotations: one refresh.rotated per grant and minute, counting them, and no token.issued per refresh', async () => {
    const rp = await newTestRp(api);
    const { code, verifier, user } = await authorizedCode(rp, 'openid offline_access');
    const tokens = await redeem(rp, code, verifier);
    const grantId = jwtClaims(tokens.body.access_token).grant_id as string;
    const refresh = (token: string) => post(TOKEN, { grant_type: 'refresh_token', refresh_token: token }, { ...rp.auth, 'x-request-id': requestId() });

    // At the start of a minute, so that both rotations fall in it.
    skipTime(60_000 - (apiNow() % 60_000) + 10);
    const minute = new Date(Math.floor(apiNow() / 60_000) * 60_000).toISOString();
    const once = await refresh(tokens.body.refresh_token);
    const twice = await refresh(once.body.refresh_token);
    expect([once.status, twice.status]).toEqual([200, 200]);
    // Nothing is recorded per rotation: the counts are recorded when the minute is over (here: drained, as at shutdown).
    await api.deps.audit.flush();
    expect(await auditRecords(api.deps.store, { event: 'refresh.rotated', 'data.grant_id': grantId })).toEqual([]);
    api.deps.refreshRotations.drain();
    await api.deps.audit.flush();
    const summary = await auditRecords(api.deps.store, { event: 'refresh.rotated', 'data.grant_id': grantId });
    expect(summary.map((r) => [r.outcome, r.actor, r.subject, r.data])).toEqual([
      ['success', { type: 'client', clientId: rp.id }, { userId: user._id, clientId: rp.id }, { client_id: rp.id, grant_id: grantId, rotations: 2, minute }],
    ]);
    // It stands for several requests: none of them is named.
    expect([summary[0]!.ip, summary[0]!.requestId]).toEqual([undefined, undefined]);

    // The next minute has a record of its own.
    skipTime(60_000);
    const third = await refresh(twice.body.refresh_token);
    expect(third.status).toBe(200);
    api.deps.refreshRotations.drain();
    await api.deps.audit.flush();
    const summaries = await auditRecords(api.deps.store, { event: 'refresh.rotated', 'data.grant_id': grantId });
    expect(summaries.map((r) => r.data.rotations)).toEqual([2, 1]);
    expect(summaries[1]!.data.minute).not.toBe(minute);

    // The summary stands for the tokens each rotation issued: no token.issued per refresh.
    expect(await auditRecords(api.deps.store, { event: 'token.issued', 'data.grant_id': grantId, 'data.grant_type': 'refresh_token' })).toEqual([]);
    const secrets = [tokens, once, twice, third].flatMap((t) => [t.body.refresh_token as string, sig(t.body.access_token)]);
    expectClean(summaries, secrets);
  });

  it('records a rotated token presented again as refresh.reuse_detected (a failure): the grant is revoked', async () => {
    const rp = await newTestRp(api);
    const { code, verifier, user } = await authorizedCode(rp, 'openid offline_access');
    const tokens = await redeem(rp, code, verifier);
    const grantId = jwtClaims(tokens.body.access_token).grant_id as string;
    const rotated = await post(TOKEN, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, rp.auth);
    expect(rotated.status).toBe(200);
    const id = requestId();
    const reused = await post(TOKEN, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, { ...rp.auth, 'x-request-id': id });
    expect(reused.body.error).toBe('invalid_grant');

    const record = await recordOf('refresh.reuse_detected', { 'data.grant_id': grantId });
    expect(record).toMatchObject({
      outcome: 'failure',
      actor: { type: 'client', clientId: rp.id },
      subject: { userId: user._id, clientId: rp.id },
      requestId: id,
      ip: expect.any(String),
    });
    expect(record.data).toEqual({ client_id: rp.id, grant_id: grantId });
    expectClean([record], [tokens.body.refresh_token, rotated.body.refresh_token]);
  });

  it('records an RFC 7009 revocation as token.revoked (refresh token, then another grant’s access token)', async () => {
    const rp = await newTestRp(api);
    const { code, verifier, user } = await authorizedCode(rp, 'openid offline_access');
    const tokens = await redeem(rp, code, verifier);
    const grantId = jwtClaims(tokens.body.access_token).grant_id as string;
    const id = requestId();
    const revoked = await post('/api/oauth/revoke', { token: tokens.body.refresh_token }, { ...rp.auth, 'x-request-id': id });
    expect(revoked.status).toBe(200);
    const refresh = await recordOf('token.revoked', { 'data.grant_id': grantId });
    expect(refresh).toMatchObject({
      outcome: 'success',
      actor: { type: 'client', clientId: rp.id },
      subject: { userId: user._id, clientId: rp.id },
      requestId: id,
      ip: expect.any(String),
    });
    expect(refresh.data).toEqual({ client_id: rp.id, grant_id: grantId, token_type: 'refresh_token', by: 'client' });

    const second = await authorizedCode(rp, 'openid');
    const other = await redeem(rp, second.code, second.verifier);
    const otherGrant = jwtClaims(other.body.access_token).grant_id as string;
    // Another client's attempt revokes nothing, and records nothing.
    const stranger = await newTestRp(api);
    expect((await post('/api/oauth/revoke', { token: other.body.access_token }, stranger.auth)).status).toBe(200);
    expect((await post('/api/oauth/revoke', { token: other.body.access_token, token_type_hint: 'access_token' }, rp.auth)).status).toBe(200);
    const access = await auditRecords(api.deps.store, { event: 'token.revoked', 'data.grant_id': otherGrant });
    expect(access.map((r) => [r.actor, r.data.token_type])).toEqual([[{ type: 'client', clientId: rp.id }, 'access_token']]);
    expectClean([refresh, ...access], [tokens.body.refresh_token, sig(tokens.body.access_token), sig(other.body.access_token)]);
  });
});

describe('the other grant types', () => {
  it('records token.issued for token exchange and client_credentials with the same data', async () => {
    const rp = await newTestRp(api, { allowedResources: [ORDERS] });
    const { code, verifier, user } = await authorizedCode(rp, 'openid offline_access');
    const subject = await redeem(rp, code, verifier);
    const grantId = jwtClaims(subject.body.access_token).grant_id as string;
    const id = requestId();
    const exchanged = await post(
      TOKEN,
      [
        ['grant_type', EXCHANGE_GRANT],
        ['subject_token', subject.body.access_token],
        ['subject_token_type', ACCESS_TOKEN_TYPE],
        ['resource', ORDERS],
      ],
      { ...rp.auth, 'x-request-id': id },
    );
    expect(exchanged.status).toBe(200);
    const exchange = await recordOf('token.issued', { 'data.grant_id': grantId, 'data.grant_type': EXCHANGE_GRANT });
    expect(exchange).toMatchObject({ actor: { type: 'client', clientId: rp.id }, subject: { userId: user._id, clientId: rp.id }, requestId: id });
    expect(exchange.data).toEqual({
      client_id: rp.id,
      grant_id: grantId,
      grant_type: EXCHANGE_GRANT,
      scopes: ['openid'],
      resource: [ORDERS],
      bound: 'none',
      refresh_token: false,
    });

    const machine = await newRp(api.deps, { name: 'Audit machine', redirectUris: [], machineAccess: [{ resource: ORDERS, scopes: ['orders:read'] }] });
    const cc = await post(TOKEN, { grant_type: 'client_credentials' }, { ...machine.headers, 'x-request-id': id });
    expect(cc.status).toBe(200);
    const own = await recordOf('token.issued', { 'data.client_id': machine.id });
    // A client's own token: the client is actor and subject, no user.
    expect(own).toMatchObject({ actor: { type: 'client', clientId: machine.id }, subject: { clientId: machine.id }, requestId: id });
    expect(own.subject.userId).toBeUndefined();
    expect(own.data).toEqual({
      client_id: machine.id,
      grant_id: jwtClaims(cc.body.access_token).grant_id,
      grant_type: 'client_credentials',
      scopes: ['orders:read'],
      resource: [ORDERS],
      bound: 'none',
      refresh_token: false,
    });
    expectClean([exchange, own], [sig(subject.body.access_token), sig(exchanged.body.access_token), sig(cc.body.access_token), machine.secret!]);
  });

  it('records the implicit flow’s tokens as token.issued (grant_type implicit, actor the user)', async () => {
    const reg = await register({
      client_name: 'Audit implicit RP',
      redirect_uris: [FLOW_REDIRECT],
      scope: 'openid profile',
      grant_types: ['implicit'],
      response_types: ['id_token token'],
      id_token_signed_response_alg: 'RS256',
      token_endpoint_auth_method: 'none',
    });
    expect(reg.status).toBe(201);
    const clientId = reg.body.client_id as string;
    const { email, user } = await newUser(api.deps, { prefix: 'audit-implicit', password: FLOW_PASSWORD });
    const params = {
      response_type: 'id_token token',
      client_id: clientId,
      redirect_uri: FLOW_REDIRECT,
      scope: 'openid profile',
      nonce: newSecret().slice(0, 12),
    };
    const back = await authorizeAs(new HttpUser(api.url), `${api.url}/api/oauth/authorize?${new URLSearchParams(params)}`, email, FLOW_PASSWORD);
    const fields = Object.fromEntries(new URLSearchParams(back.hash.slice(1)));
    expect(fields.access_token).toBeTruthy();
    const record = await recordOf('token.issued', { 'data.client_id': clientId });
    expect(record).toMatchObject({ actor: { type: 'user', userId: user._id }, subject: { userId: user._id, clientId }, ip: expect.any(String) });
    expect(record.data).toEqual({
      client_id: clientId,
      grant_id: jwtClaims(fields.access_token!).grant_id,
      grant_type: 'implicit',
      scopes: ['openid', 'profile'],
      resource: [],
      bound: 'none',
      refresh_token: false,
    });
    expectClean([record], [sig(fields.access_token), sig(fields.id_token)]);
  });
});

describe('the device flow', () => {
  const DEVICE_RP = { name: 'Audit device RP', redirectUris: [{ value: 'https://audit-device.example/cb' }], allowedScopes: ['openid', 'profile'] };

  /** A device request answered at /device by a new user: the device code, the user code and the user. */
  async function answered(decision: 'allow' | 'deny') {
    const rp = await newRp(api.deps, DEVICE_RP);
    const started = await post('/api/oauth/device_authorization', { scope: 'openid profile' }, rp.headers);
    expect(started.status).toBe(200);
    const { device_code: deviceCode, user_code: userCode } = started.body as { device_code: string; user_code: string };
    const { email, user } = await newUser(api.deps, { prefix: 'audit-device', password: FLOW_PASSWORD });
    const agent = new HttpUser(api.url);
    let step = await agent.submit(await (await agent.get('/device')).res.text(), '/device', { user_code: userCode });
    if (step.url.includes('/login')) step = await agent.signIn(step, email, FLOW_PASSWORD);
    const done = await agent.submit(await step.res.text(), '/device/consent', { decision });
    expect(done.res.status).toBe(200);
    await eventually(async () =>
      expect((await findDeviceCode(api.deps.store, hashSecret(deviceCode)))?.status).toBe(decision === 'allow' ? 'approved' : 'denied'),
    );
    return { rp, deviceCode, userCode, user };
  }

  it('records device.approved (and the consent it remembers), then token.issued when the device redeems it', async () => {
    const { rp, deviceCode, userCode, user } = await answered('allow');
    const subject = { userId: user._id, clientId: rp.id };
    const approved = await recordOf('device.approved', { 'subject.userId': user._id });
    expect(approved).toMatchObject({
      outcome: 'success',
      actor: { type: 'user', userId: user._id },
      subject,
      ip: expect.any(String),
      requestId: expect.any(String),
    });
    expect(approved.data).toEqual({ client_id: rp.id, scopes: ['openid', 'profile'] });
    const consent = await recordOf('consent.granted', { 'subject.userId': user._id });
    expect(consent.data).toEqual({ client_id: rp.id, scopes: ['openid', 'profile'] });

    const tokens = await post(TOKEN, { grant_type: DEVICE_GRANT, device_code: deviceCode }, rp.headers);
    expect(tokens.status).toBe(200);
    const issued = await recordOf('token.issued', { 'data.client_id': rp.id });
    expect(issued).toMatchObject({ actor: { type: 'client', clientId: rp.id }, subject });
    expect(issued.data).toEqual({
      client_id: rp.id,
      grant_id: jwtClaims(tokens.body.access_token).grant_id,
      grant_type: DEVICE_GRANT,
      scopes: ['openid', 'profile'],
      resource: [],
      bound: 'none',
      refresh_token: false,
    });
    expectClean([approved, consent, issued], [deviceCode, userCode, userCode.replace('-', ''), sig(tokens.body.access_token), rp.secret!]);
  });

  it('records device.denied, and no consent', async () => {
    const { rp, deviceCode, userCode, user } = await answered('deny');
    const denied = await recordOf('device.denied', { 'subject.userId': user._id });
    expect(denied).toMatchObject({ actor: { type: 'user', userId: user._id }, subject: { userId: user._id, clientId: rp.id }, ip: expect.any(String) });
    expect(denied.data).toEqual({ client_id: rp.id });
    expect(await auditRecords(api.deps.store, { event: 'consent.granted', 'subject.userId': user._id })).toEqual([]);
    expectClean([denied], [deviceCode, userCode]);
  });
});

describe('step-up and sudo windows', () => {
  const STEP_UP_RP = { name: 'Audit step-up RP', allowedScopes: ['openid'], redirectUris: [{ type: 'equals' as const, value: STEP_UP_REDIRECT }] };
  beforeAll(async () => {
    await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 10);
  });

  async function challenge(rp: { basic: string }) {
    const res = await fetch(`${api.url}/api/oauth/2fa/challenges`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: rp.basic },
      body: JSON.stringify({ redirect_uri: STEP_UP_REDIRECT, action: 'Close the account', nonce: 'n-1' }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { challenge_id: string; url: string };
  }

  /** A user with an authenticator app, signed in (a backup code as second factor) on the challenge's page. */
  async function onPage(url: string, who?: Awaited<ReturnType<typeof newUser>> & { agent: HttpUser }) {
    const user = who ?? {
      ...(await newUser(api.deps, { prefix: 'audit-stepup', password: FLOW_PASSWORD, totpSecret: TOTP_SECRET })),
      agent: new HttpUser(api.url),
    };
    let step = await user.agent.get(url);
    if (new URL(step.url).pathname === '/login') {
      step = await user.agent.signIn(step, user.email, FLOW_PASSWORD);
      if (new URL(step.url).pathname === '/login/second-factor')
        step = await user.agent.submit(await step.res.text(), '/login/second-factor', { code: user.backupCodes.pop()! });
    }
    expect(new URL(step.url).pathname).toBe('/oauth/2fa');
    return { who: user, page: await step.res.text() };
  }

  it('records stepup.confirmed with the answering request, and the sudo window the user opened (sudo.opened)', async () => {
    const rp = await newRp(api.deps, STEP_UP_RP);
    const created = await challenge(rp);
    const { who, page } = await onPage(created.url);
    const totp = await generate({ secret: TOTP_SECRET });
    const done = await who.agent.submit(page, '/api/oauth/2fa/authorize', { confirm_action: 'yes', code: totp, sudo: 'yes' });
    const code = done.external!.searchParams.get('code')!;
    expect(code).toBeTruthy();
    const subject = { userId: who.id, clientId: rp.id };

    const confirmed = await recordOf('stepup.confirmed', { 'subject.userId': who.id });
    expect(confirmed).toMatchObject({
      outcome: 'success',
      actor: { type: 'user', userId: who.id },
      subject,
      ip: expect.any(String),
      requestId: expect.any(String),
    });
    expect(confirmed.data).toEqual({ client_id: rp.id, action: 'Close the account', method: 'totp' });
    const opened = await recordOf('sudo.opened', { 'subject.userId': who.id });
    expect(opened).toMatchObject({ outcome: 'success', actor: { type: 'user', userId: who.id }, subject, ip: expect.any(String) });
    expect(opened.data).toEqual({ client_id: rp.id, seconds: 600 });
    // The same browser request did both.
    expect(opened.requestId).toBe(confirmed.requestId);
    expectClean([confirmed, opened], [code, hashSecret(code), totp, ...who.backupCodes]);
  });

  it('records stepup.denied (a failure) for a denial and for a wrong factor', async () => {
    const rp = await newRp(api.deps, STEP_UP_RP);
    const first = await onPage((await challenge(rp)).url);
    const denied = await first.who.agent.submit(first.page, '/api/oauth/2fa/authorize', { decision: 'deny' });
    expect(denied.external!.searchParams.get('error')).toBe('access_denied');
    const second = await onPage((await challenge(rp)).url, first.who);
    const failed = await second.who.agent.submit(second.page, '/api/oauth/2fa/authorize', { confirm_action: 'yes', code: '000000' });
    expect(failed.external!.searchParams.get('error')).toBe('access_denied');

    const records = await awaitAuditRecords(api.deps.store, { event: 'stepup.denied', 'subject.userId': first.who.id }, 2);
    expect(records.map((r) => [r.outcome, r.actor, r.data.reason, r.data.client_id, r.data.action, typeof r.ip])).toEqual([
      ['failure', { type: 'user', userId: first.who.id }, 'denied', rp.id, 'Close the account', 'string'],
      ['failure', { type: 'user', userId: first.who.id }, 'failed', rp.id, 'Close the account', 'string'],
    ]);
    expectClean(records, ['000000']);
  });

  it('records an unanswered challenge as stepup.denied by Keyflow (reason expired)', async () => {
    const rp = await newRp(api.deps, STEP_UP_RP);
    const challengeId = crypto.randomUUID();
    const now = Date.now();
    await insertStepUpChallenge(api.deps.store, {
      _id: challengeId,
      clientId: rp.id,
      redirectUri: STEP_UP_REDIRECT,
      state: null,
      action: 'Expire quietly',
      nonce: '',
      codeChallenge: null,
      requireCaptcha: false,
      status: 'created',
      createdAt: new Date(now),
      expiresAt: new Date(now + 1000),
    });
    const handle = await api.deps.temporal.client.workflow.start<typeof stepUpChallenge>('stepUpChallenge', {
      workflowId: stepUpWorkflowId(challengeId),
      taskQueue: api.deps.config.temporal.taskQueue,
      args: [{ challengeId, clientId: rp.id, expiresAt: now + 1000, codeTtlMs: 60_000 }],
    });
    expect(await handle.result()).toBe('expired');
    const record = await recordOf('stepup.denied', { 'subject.clientId': rp.id });
    expect(record).toMatchObject({ outcome: 'failure', actor: { type: 'system' }, subject: { clientId: rp.id } });
    expect(record.data).toEqual({ client_id: rp.id, action: 'Expire quietly', reason: 'expired' });
    expect(record.ip).toBeUndefined();
  });

  it('records sudo.ended when a window expires and when it is revoked', async () => {
    const deps: SudoDeps & { audit: AuditTrail } = {
      store: api.deps.store,
      audit: api.deps.audit,
      flows: { client: api.deps.temporal.client, taskQueue: api.deps.config.temporal.taskQueue },
    };
    const rp = await newRp(api.deps, STEP_UP_RP);
    const { id: userId } = await newUser(api.deps, { prefix: 'audit-sudo', password: FLOW_PASSWORD });
    const sessionEnd = new Date(Date.now() + 3_600_000);
    const expiring = { userId, sid: newSecret(), clientId: rp.id };
    expect(await openSudoWindow(deps, expiring, sessionEnd, { ttlMs: 1_500 })).not.toBeNull();
    const revoked = { userId, sid: newSecret(), clientId: rp.id };
    expect(await openSudoWindow(deps, revoked, sessionEnd)).not.toBeNull();
    expect(await revokeSudoWindow(deps, revoked)).toBe(true);

    const ended = await awaitAuditRecords(api.deps.store, { event: 'sudo.ended', 'subject.userId': userId }, 2);
    const byReason = [...ended].sort((a, b) => String(a.data.reason).localeCompare(String(b.data.reason)));
    expect(byReason.map((r) => [r.outcome, r.actor, r.subject, r.data])).toEqual([
      ['success', { type: 'system' }, { userId, clientId: rp.id }, { client_id: rp.id, reason: 'expired' }],
      ['success', { type: 'system' }, { userId, clientId: rp.id }, { client_id: rp.id, reason: 'revoked' }],
    ]);
    // One record per end: the revoked window's end is not recorded again.
    await api.deps.audit.flush();
    expect(await auditRecords(api.deps.store, { event: 'sudo.ended', 'subject.userId': userId })).toHaveLength(2);
    expectClean(ended, [expiring.sid, revoked.sid]);
  });
});
