// RP-initiated logout and back-channel logout, with a real RP receiver that
// verifies the logout token against the JWKS. The id_token_hint must be an ID
// token of an existing client; a GET (a link) always asks the user to confirm,
// a POST with a valid hint signs out at once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { newSecret } from '../../../lib/security/secrets.js';
import { createClient } from '../../../lib/store/clients.js';
import { createUser } from '../../../lib/store/users.js';
import { SearchAttributes } from '../../../lib/temporal/search-attributes.js';
import { useTestApi, eventually, type Json } from '../../support/harness.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { startRawReceiver } from '../../support/raw-receiver.js';

const PASSWORD = 'logout test password';
const REDIRECT = 'https://logout-rp.example/cb';
const AFTER_LOGOUT = 'https://logout-rp.example/bye';

let receiver: http.Server;
let receiverBase: string;
let received: { path: string; contentType: string | undefined; body: string }[] = [];
let temporal: Client;

const api = useTestApi();
beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ path: req.url!, contentType: req.headers['content-type'], body });
      res.writeHead(req.url === '/failing' ? 500 : 200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // The api's own Temporal client (closed by api.stop()).
  temporal = api.deps.temporal.client;
});
afterAll(async () => {
  await new Promise((r) => receiver.close(r));
});
beforeEach(() => {
  received = [];
});

async function signedIn(backchannelPath = '/bcl', backchannelBase = receiverBase) {
  const { client, clientSecret } = await createClient(api.deps.store, {
    name: 'Logout RP',
    redirectUris: [{ type: 'equals', value: REDIRECT }],
    postLogoutRedirectUris: [AFTER_LOGOUT],
    backchannelLogoutUri: `${backchannelBase}${backchannelPath}`,
    idTokenSignedResponseAlg: 'RS256',
  });
  const email = uniqueEmail('logout');
  const user = await createUser(api.deps.store, { email, password: PASSWORD });
  const agent = new HttpUser(api.issuer);
  const verifier = newSecret();
  let step = await agent.get(
    `/api/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client._id, redirect_uri: REDIRECT, scope: 'openid', code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' })}`,
  );
  step = await agent.signIn(step, email, PASSWORD);
  step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  const code = step.external!.searchParams.get('code')!;
  const tokenRes = await fetch(`${api.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }),
  });
  const tokens = (await tokenRes.json()) as Json;
  const idClaims = JSON.parse(Buffer.from(tokens.id_token.split('.')[1], 'base64url').toString());
  return { client, user, agent, tokens, sid: idClaims.sid as string };
}

/** POSTs the end_session form as an RP's page would (same browser, its cookie). */
const postEndSession = (agent: HttpUser, fields: Record<string, string>) =>
  agent.request('/api/oauth/end_session', {
    method: 'POST',
    body: new URLSearchParams(fields),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

/** Still signed in: /account answers, not a redirect to /login. */
const isSignedIn = async (agent: HttpUser) => (await agent.request('/account')).status === 200;

describe('RP-initiated logout', () => {
  it('signs out at once on a POST with an id_token_hint, redirects with state, and sends a verifiable back-channel logout token', async () => {
    const { client, user, agent, tokens, sid } = await signedIn();
    const res = await postEndSession(agent, { id_token_hint: tokens.id_token, post_logout_redirect_uri: AFTER_LOGOUT, state: 'bye-state' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${AFTER_LOGOUT}?state=bye-state`);
    expect(res.headers.getSetCookie().some((c) => /^kf_session=;.*Max-Age=0/.test(c))).toBe(true);
    expect((await agent.request('/account')).headers.get('location')).toBe('/login');

    await eventually(() => expect(received).toHaveLength(1), 15_000);
    const delivery = received[0]!;
    expect(delivery.path).toBe('/bcl');
    expect(delivery.contentType).toBe('application/x-www-form-urlencoded');
    const logoutToken = new URLSearchParams(delivery.body).get('logout_token')!;
    const { payload, protectedHeader } = await jwtVerify(logoutToken, createRemoteJWKSet(new URL(`${api.issuer}/.well-known/jwks.json`)), {
      issuer: api.issuer,
      audience: client._id,
      typ: 'logout+jwt',
      algorithms: ['RS256'],
    });
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'logout+jwt' });
    expect(payload).toMatchObject({
      sub: user._id,
      sid,
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
      jti: expect.any(String),
      iat: expect.any(Number),
    });
    expect(payload).not.toHaveProperty('nonce');

    // The flow is a workflow, findable by user, with its outcome; no token in its history.
    const handle = temporal.workflow.getHandle(`logout:${sid}`);
    expect(await handle.result()).toEqual([{ clientId: client._id, sent: true, ok: true, status: 200, error: null, durationMs: expect.any(Number) }]);
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(SearchAttributes.userId)).toBe(user._id);
    expect(description.typedSearchAttributes.get(SearchAttributes.state)).toBe('delivered');
    expect(JSON.stringify(await handle.fetchHistory())).not.toContain(logoutToken.split('.')[2]);
  });

  it('asks the user to confirm a GET even with a valid id_token_hint: a link alone never signs out', async () => {
    const { agent, tokens } = await signedIn();
    const ask = await agent.request(
      `/api/oauth/end_session?${new URLSearchParams({ id_token_hint: tokens.id_token, post_logout_redirect_uri: AFTER_LOGOUT, state: 'bye-state' })}`,
    );
    expect(ask.status).toBe(200);
    const page = await ask.text();
    expect(page).toContain('Sign out of Keyflow?');
    // A way back that changes nothing: the account, still signed in.
    expect(page).toContain('<a href="/account">Stay signed in</a>');
    expect((await agent.get('/account')).res.status).toBe(200);
    expect(await isSignedIn(agent)).toBe(true);
    // Confirming signs out and goes back to the RP with its state.
    const done = await agent.submit(page, '/api/oauth/end_session', {});
    expect(done.external?.href).toBe(`${AFTER_LOGOUT}?state=bye-state`);
    expect(await isSignedIn(agent)).toBe(false);
  });

  it("sends a POST without the session cookie (an RP's page: cross-site, SameSite=Lax) on as a GET, which asks the user to confirm", async () => {
    const { agent, tokens } = await signedIn();
    const fields = { id_token_hint: tokens.id_token, post_logout_redirect_uri: AFTER_LOGOUT, state: 'cross-site' };
    const crossSite = await fetch(`${api.issuer}/api/oauth/end_session`, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
    expect(crossSite.status).toBe(303);
    const next = new URL(crossSite.headers.get('location')!, api.issuer);
    expect([next.origin + next.pathname, Object.fromEntries(next.searchParams)]).toEqual([`${api.issuer}/api/oauth/end_session`, fields]);
    expect(await isSignedIn(agent)).toBe(true);
    // The browser follows with its cookie: the confirmation page, then signed out.
    const page = await (await agent.get(next.href)).res.text();
    expect(page).toContain('Sign out of Keyflow?');
    const done = await agent.submit(page, '/api/oauth/end_session', {});
    expect(done.external?.href).toBe(`${AFTER_LOGOUT}?state=cross-site`);
    expect(await isSignedIn(agent)).toBe(false);
  });

  it('refuses an id_token_hint that is not an ID token of an existing client, and signs no one out', async () => {
    const { client, user, agent, tokens, sid } = await signedIn();
    const now = Math.floor(Date.now() / 1000);
    const idLike = { iss: api.issuer, sub: user._id, aud: client._id, iat: now, exp: now + 3600, auth_time: now, amr: ['pwd'], acr: 'pwd', sid };
    const hints: Record<string, string> = {
      'an access token': tokens.access_token,
      'a logout token': await api.deps.signer.sign(
        {
          iss: api.issuer,
          aud: client._id,
          sub: user._id,
          iat: now,
          exp: now + 120,
          jti: 'j1',
          sid,
          events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
        },
        { alg: 'RS256', typ: 'logout+jwt' },
      ),
      'a JWT with access token claims and no typ': await api.deps.signer.sign(
        { ...idLike, client_id: client._id, scope: 'openid', jti: 'j2', grant_id: 'g' },
        { alg: 'RS256' },
      ),
      'a JWT without auth_time': await api.deps.signer.sign(
        { iss: api.issuer, sub: user._id, aud: client._id, iat: now, exp: now + 3600, sid },
        { alg: 'RS256' },
      ),
      'an ID token with several audiences': await api.deps.signer.sign({ ...idLike, aud: [client._id, 'another'] }, { alg: 'RS256' }),
      'an ID token of a client that does not exist': await api.deps.signer.sign({ ...idLike, aud: 'no-such-client' }, { alg: 'RS256' }),
      'an ID token of another issuer': await api.deps.signer.sign({ ...idLike, iss: 'https://elsewhere.example' }, { alg: 'RS256' }),
    };
    for (const [name, hint] of Object.entries(hints)) {
      for (const res of [
        await agent.request(`/api/oauth/end_session?${new URLSearchParams({ id_token_hint: hint })}`),
        await postEndSession(agent, { id_token_hint: hint }),
      ]) {
        expect([name, res.status]).toEqual([name, 400]);
        expect(await res.text()).toContain('Sign-out failed');
      }
    }
    // client_id must agree with the hint's audience.
    const other = await createClient(api.deps.store, { name: 'Other RP', redirectUris: [{ type: 'equals', value: REDIRECT }] });
    expect((await postEndSession(agent, { id_token_hint: tokens.id_token, client_id: other.client._id })).status).toBe(400);
    expect(await isSignedIn(agent)).toBe(true);
    // The real ID token is a valid hint.
    expect((await postEndSession(agent, { id_token_hint: tokens.id_token, client_id: client._id })).status).toBe(200);
    expect(await isSignedIn(agent)).toBe(false);
  });

  it('asks the user to confirm without a hint, and shows the signed-out page for an unregistered redirect', async () => {
    const { agent } = await signedIn();
    const ask = await agent.request(`/api/oauth/end_session?${new URLSearchParams({ post_logout_redirect_uri: 'https://evil.example/', state: 's' })}`);
    expect(ask.status).toBe(200);
    const page = await ask.text();
    expect(page).toContain('Sign out of Keyflow?');
    expect((await agent.request('/account')).status).toBe(200); // not signed out by a link
    const done = await agent.submit(page, '/api/oauth/end_session', {});
    expect(done.external).toBeUndefined();
    expect(await done.res.text()).toContain('You are signed out');
    expect((await agent.request('/account')).headers.get('location')).toBe('/login');
  });

  it('accepts an expired id_token_hint and refuses a forged one', async () => {
    const { client, user, agent, sid } = await signedIn();
    const past = Math.floor(Date.now() / 1000) - 7200;
    const expired = await api.deps.signer.sign(
      { iss: api.issuer, aud: client._id, sub: user._id, sid, iat: past, exp: past + 3600, auth_time: past, amr: ['pwd'], acr: 'pwd' },
      { alg: 'RS256' },
    );
    const forged = expired.slice(0, -4) + (expired.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    const bad = await postEndSession(agent, { id_token_hint: forged });
    expect(bad.status).toBe(400);
    const ok = await postEndSession(agent, { id_token_hint: expired, post_logout_redirect_uri: AFTER_LOGOUT });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe(AFTER_LOGOUT);
  });

  it('sends the logout token with a Content-Length: a receiver that reads exactly that many bytes gets the whole form', async () => {
    const strict = await startRawReceiver();
    try {
      const { client, agent, tokens } = await signedIn('/strict', strict.url);
      await postEndSession(agent, { id_token_hint: tokens.id_token });
      const got = await strict.received.next(15_000, 'no back-channel logout arrived');
      expect(got).toMatchObject({ method: 'POST', path: '/strict' });
      expect(got.headers['transfer-encoding']).toBeUndefined();
      expect(got.headers['content-length']).toBe(String(Buffer.byteLength(got.body)));
      const logoutToken = new URLSearchParams(got.body).get('logout_token')!;
      const { payload } = await jwtVerify(logoutToken, createRemoteJWKSet(new URL(`${api.issuer}/.well-known/jwks.json`)), {
        issuer: api.issuer,
        audience: client._id,
        typ: 'logout+jwt',
      });
      expect(payload.events).toEqual({ 'http://schemas.openid.net/event/backchannel-logout': {} });
    } finally {
      await strict.close();
    }
  });

  it('sends back-channel logout for "Sign out" on the account page, and records a failing receiver', async () => {
    const { client, agent, sid } = await signedIn('/failing');
    const account = await agent.get('/account');
    await agent.submit(await account.res.text(), '/logout', {});
    // (Deliveries of earlier tests may still arrive at /bcl.)
    await eventually(() => expect(received.filter((r) => r.path === '/failing')).toHaveLength(1), 15_000);
    const outcome = await temporal.workflow.getHandle(`logout:${sid}`).result();
    expect(outcome).toEqual([{ clientId: client._id, sent: true, ok: false, status: 500, error: null, durationMs: expect.any(Number) }]);
    // Recorded in MongoDB too, kept 30 days (then purged by housekeeping).
    const record = await api.deps.store.db.collection('logout_deliveries').findOne({ sid });
    expect(record).toMatchObject({ clientId: client._id, ok: false, status: 500 });
    expect(Math.round((record!.expiresAt.getTime() - record!.at.getTime()) / 86_400_000)).toBe(30);
    expect((await temporal.workflow.getHandle(`logout:${sid}`).describe()).typedSearchAttributes.get(SearchAttributes.state)).toBe('failed');
  });
});
