// Step-up 2FA confirmation over HTTP: challenge creation (fields,
// validation, rate limit), the confirmation page (sign-in and back, TOTP,
// backup code, deny, failed factor, unticked checkbox, no factor enrolled),
// verify (single use, expiry, client / redirect URI / PKCE binding), and what
// the StepUpChallenge workflow keeps in its history.
import type { Client } from '@temporalio/client';
import { generate } from 'otplib';
import type { NewClientInput } from '../../../lib/model/clients.js';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { hashSecret, newSecret } from '../../../lib/security/secrets.js';
import { createClient } from '../../../lib/store/clients.js';
import { findStepUpChallenge, insertStepUpChallenge, stepUpAudit, stepUpChallenges, stepUpCodes } from '../../../lib/store/step-up.js';
import { stepUpWorkflowId } from '../../../lib/model/step-up-challenge.js';
import type { stepUpChallenge } from '../../../workflows/step-up-challenge.js';
import { confirmStepUpUpdate as confirmUpdate } from '../../../lib/temporal/flow-messages.js';
import { useTestApi, eventually, startTestApi, type Json } from '../../support/harness.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';
import { testDatabase } from '../../support/database.js';
import { expectNoSecret } from '../../support/secrets.js';

const PASSWORD = 'step-up test password';
const REDIRECT = 'https://rp.example/2fa/callback';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

let temporal: Client;

const api = useTestApi();
beforeAll(async () => {
  // The api's own Temporal client (closed by api.stop()).
  temporal = api.deps.temporal.client;
});

type Rp = Pick<FixtureRp, 'id' | 'body' | 'headers'>;

const RP: NewClientInput = {
  name: 'Bank <RP>',
  allowedScopes: ['openid'],
  redirectUris: [{ type: 'equals', value: REDIRECT }],
  isVerified: true,
};

async function createChallenge(rp: Rp, fields: Record<string, unknown> = {}) {
  const res = await fetch(`${api.issuer}/api/oauth/2fa/challenges`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...rp.headers },
    body: JSON.stringify({ ...rp.body, redirect_uri: REDIRECT, action: 'Transfer 100 EUR to <Mallory> & co', nonce: 'n-123', state: 'st/1', ...fields }),
  });
  return { res, body: (await res.json()) as Json };
}

async function verify(rp: Rp, fields: Record<string, string>) {
  const res = await fetch(`${api.issuer}/api/oauth/2fa/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...rp.headers },
    body: new URLSearchParams({ ...rp.body, redirect_uri: REDIRECT, ...fields }),
  });
  return { res, body: (await res.json()) as Json };
}

/** A user with an authenticator app (sealed directly into the store) and backup codes. */
const USER = { prefix: 'stepup', password: PASSWORD, name: 'Step Up', totpSecret: TOTP_SECRET };

/** Opens the challenge's url, signing in on the way (password, then a backup code as the second factor). */
async function openPage(url: string, who: { email: string; backupCodes: string[] }, agent = new HttpUser(api.issuer)) {
  let step = await agent.get(url);
  if (new URL(step.url).pathname === '/login') {
    step = await agent.signIn(step, who.email, PASSWORD);
    if (new URL(step.url).pathname === '/login/second-factor')
      step = await agent.submit(await step.res.text(), '/login/second-factor', { code: who.backupCodes.pop()! });
  }
  expect(new URL(step.url).pathname).toBe('/oauth/2fa');
  return { agent, res: step.res, page: await step.res.text() };
}

const answer = (agent: HttpUser, page: string, fields: Record<string, string>) => agent.submit(page, '/api/oauth/2fa/authorize', fields);
const totpNow = (offsetSeconds = 0) => generate({ secret: TOTP_SECRET, epoch: Math.floor(Date.now() / 1000) + offsetSeconds });

/** A full confirmation with TOTP: returns the code and the redirect. */
async function confirmWithTotp(rp: Rp, who: Awaited<ReturnType<typeof newUser>>, fields: Record<string, unknown> = {}) {
  const created = await createChallenge(rp, fields);
  expect(created.res.status).toBe(201);
  const { agent, page } = await openPage(created.body.url, who);
  const done = await answer(agent, page, { confirm_action: 'yes', code: await totpNow() });
  expect(done.external?.origin).toBe('https://rp.example');
  return { challengeId: created.body.challenge_id as string, redirect: done.external!, code: done.external!.searchParams.get('code')! };
}

describe('POST /api/oauth/2fa/challenges', () => {
  it('creates a challenge: id, expiry and the confirmation url with state', async () => {
    const rp = await newRp(api.deps, RP);
    const before = Math.floor(Date.now() / 1000);
    const { res, body } = await createChallenge(rp);
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(body).toEqual({
      challenge_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      expires_at: expect.any(Number),
      url: `${api.issuer}/oauth/2fa?challenge_id=${body.challenge_id}&state=st%2F1`,
    });
    expect(body.expires_at).toBeGreaterThanOrEqual(before + 600);
    expect(body.expires_at).toBeLessThanOrEqual(before + 602);
    const doc = (await findStepUpChallenge(api.deps.store, body.challenge_id))!;
    expect(doc).toMatchObject({
      clientId: rp.id,
      redirectUri: REDIRECT,
      state: 'st/1',
      action: 'Transfer 100 EUR to <Mallory> & co',
      nonce: 'n-123',
      requireCaptcha: false,
      status: 'created',
    });
    const info = await (await fetch(`${api.issuer}/api/oauth/2fa/info?challenge_id=${body.challenge_id}`)).json();
    expect(info).toEqual({
      captcha_required: false,
      captcha_provider: 'none',
      captcha_site_key: null,
      action: 'Transfer 100 EUR to <Mallory> & co',
      client_name: 'Bank <RP>',
    });
    // Without state, the url carries none.
    const { body: noState } = await createChallenge(rp, { state: undefined, require_captcha: true });
    expect(noState.url).toBe(`${api.issuer}/oauth/2fa?challenge_id=${noState.challenge_id}`);
    expect((await findStepUpChallenge(api.deps.store, noState.challenge_id))!.requireCaptcha).toBe(true);
  });

  it('accepts client_id and client_secret in the JSON body', async () => {
    const { client, clientSecret } = await createClient(api.deps.store, {
      name: 'Body RP',
      allowedScopes: ['openid'],
      redirectUris: [{ type: 'equals', value: REDIRECT }],
    });
    const { res } = await createChallenge({ id: client._id, body: { client_id: client._id, client_secret: clientSecret! }, headers: {} });
    expect(res.status).toBe(201);
    const wrong = await createChallenge({ id: client._id, body: { client_id: client._id, client_secret: 'nope' }, headers: {} });
    expect(wrong.res.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
  });

  it.each([
    ['an unregistered redirect_uri', { redirect_uri: 'https://evil.example/cb' }],
    ['an action over 200 characters', { action: 'a'.repeat(201) }],
    ['a nonce over 256 characters', { nonce: 'n'.repeat(257) }],
    ['a non-boolean require_captcha', { require_captcha: 'yes' }],
    ['PKCE plain', { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }],
  ])('refuses %s with 400 invalid_request', async (_name, fields) => {
    const { res, body } = await createChallenge(await newRp(api.deps, RP), fields);
    expect(res.status).toBe(400);
    expect(body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('accepts exactly 200 characters of action and 256 of nonce', async () => {
    const { res } = await createChallenge(await newRp(api.deps, RP), { action: 'a'.repeat(200), nonce: 'n'.repeat(256) });
    expect(res.status).toBe(201);
  });

  it('requires PKCE from public clients', async () => {
    const rp = await newRp(api.deps, { ...RP, public: true });
    const { res, body } = await createChallenge(rp);
    expect(res.status).toBe(400);
    expect(body.error).toBe('invalid_request');
    const ok = await createChallenge(rp, { code_challenge: s256Challenge(newSecret()), code_challenge_method: 'S256' });
    expect(ok.res.status).toBe(201);
  });

  it('limits a client to 60 challenges a minute: the 61st is 429 with Retry-After', async () => {
    const rp = await newRp(api.deps, RP);
    const statuses: number[] = [];
    // Every authenticated request counts; invalid ones keep the test from starting 60 workflows.
    for (let i = 0; i < 59; i++) statuses.push((await createChallenge(rp, { action: 'a'.repeat(201) })).res.status);
    expect(new Set(statuses)).toEqual(new Set([400]));
    expect((await createChallenge(rp)).res.status).toBe(201); // the 60th
    const limited = await createChallenge(rp);
    expect(limited.res.status).toBe(429);
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // Another client is not affected.
    expect((await createChallenge(await newRp(api.deps, RP))).res.status).toBe(201);
  });
});

describe('the confirmation page and verify', () => {
  it('sends a signed-out user through sign-in, confirms with TOTP and verify returns the result once', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await newUser(api.deps, USER);
    const backupCodes = [...who.backupCodes];
    const created = await createChallenge(rp);
    const agent = new HttpUser(api.issuer);
    const first = await agent.get(created.body.url);
    expect(new URL(first.url).pathname).toBe('/login');
    const { page } = await openPage(created.body.url, who, agent);
    // The action verbatim, escaped, in the text and in the checkbox label; Confirm disabled until ticked.
    expect(page).toContain('Transfer 100 EUR to &lt;Mallory&gt; &amp; co');
    expect(page).toContain('I confirm: Transfer 100 EUR to &lt;Mallory&gt; &amp; co');
    expect(page).toContain('Bank &lt;RP&gt;');
    expect(page).toMatch(/<button type="submit" name="decision" value="confirm" disabled/);
    expect(page).toContain('/assets/step-up.js');
    expect(page).toContain('Authentication code');

    const totp = await totpNow();
    const done = await answer(agent, page, { confirm_action: 'yes', code: totp });
    const redirect = done.external!;
    expect(redirect.origin + redirect.pathname).toBe(REDIRECT);
    expect(redirect.searchParams.get('state')).toBe('st/1');
    const code = redirect.searchParams.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const before = Math.floor(Date.now() / 1000);
    const ok = await verify(rp, { code });
    expect(ok.res.status).toBe(200);
    expect(ok.body).toEqual({
      user_id: who.id,
      client_id: rp.id,
      verified_at: expect.any(Number),
      action: 'Transfer 100 EUR to <Mallory> & co',
      nonce: 'n-123',
      method: 'totp',
    });
    expect(Math.abs(ok.body.verified_at - before)).toBeLessThanOrEqual(5);
    // Replayed.
    const again = await verify(rp, { code });
    expect(again.res.status).toBe(400);
    expect(again.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });

    // The workflow ended redeemed; its history holds neither the TOTP code, the backup code used at sign-in, nor the 2FA code.
    const handle = temporal.workflow.getHandle(stepUpWorkflowId(created.body.challenge_id));
    await eventually(async () => expect((await handle.describe()).status.name).toBe('COMPLETED'));
    expect(await handle.result()).toBe('redeemed');
    // Payloads are base64 JSON: decoded, so the check reads what the history holds.
    const history = JSON.stringify(await handle.fetchHistory(), (key, value) =>
      key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
    );
    expect(history).toContain(hashSecret(code)); // the decoding works
    for (const secret of [totp, code, ...backupCodes]) expectNoSecret(history, secret);
    const desc = await handle.describe();
    expect(desc.searchAttributes.KeyflowClientId).toEqual([rp.id]);
    expect(desc.searchAttributes.KeyflowUserId).toEqual([who.id]);
    expect(desc.searchAttributes.KeyflowState).toEqual(['redeemed']);
    // Audited: issued, then redeemed.
    await eventually(async () => {
      const audit = await stepUpAudit(api.deps.store).find({ challengeId: created.body.challenge_id }).toArray();
      expect(audit.map((a) => a.result).sort()).toEqual(['issued', 'redeemed']);
      expect(audit[0]).toMatchObject({ clientId: rp.id, userId: who.id, action: 'Transfer 100 EUR to <Mallory> & co', method: 'totp' });
    });
  });

  it('confirms with a backup code: method backup', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await newUser(api.deps, USER);
    const created = await createChallenge(rp, { state: undefined });
    const { agent, page } = await openPage(created.body.url, who);
    const done = await answer(agent, page, { confirm_action: 'yes', code: who.backupCodes.pop()! });
    expect(done.external!.searchParams.has('state')).toBe(false);
    const ok = await verify(rp, { code: done.external!.searchParams.get('code')! });
    expect(ok.res.status).toBe(200);
    expect(ok.body.method).toBe('backup');
  });

  it('deny sends access_denied with state to the app', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await newUser(api.deps, USER);
    const created = await createChallenge(rp);
    const { agent, page } = await openPage(created.body.url, who);
    const done = await answer(agent, page, { decision: 'deny' });
    expect(done.external!.searchParams.get('error')).toBe('access_denied');
    expect(done.external!.searchParams.get('state')).toBe('st/1');
    expect(done.external!.searchParams.has('code')).toBe(false);
    await eventually(async () => expect((await findStepUpChallenge(api.deps.store, created.body.challenge_id))?.status).toBe('denied'));
    // The page is gone.
    expect((await agent.get(created.body.url)).res.status).toBe(400);
  });

  it('a failed factor attempt consumes the challenge', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await newUser(api.deps, USER);
    const created = await createChallenge(rp);
    const { agent, page } = await openPage(created.body.url, who);
    const wrong = String((Number(await totpNow()) + 1) % 1_000_000).padStart(6, '0');
    const done = await answer(agent, page, { confirm_action: 'yes', code: wrong });
    expect(done.external!.searchParams.get('error')).toBe('access_denied');
    expect(done.external!.searchParams.get('state')).toBe('st/1');
    // A right code afterwards does not help: the challenge is consumed.
    const retry = await answer(agent, page, { confirm_action: 'yes', code: await totpNow() });
    expect(retry.external).toBeUndefined();
    expect(retry.res.status).toBe(400);
    await eventually(async () => expect((await findStepUpChallenge(api.deps.store, created.body.challenge_id))?.status).toBe('failed'));
    const handle = temporal.workflow.getHandle(stepUpWorkflowId(created.body.challenge_id));
    await eventually(async () => expect(await handle.result()).toBe('failed'));
  });

  it('refuses an unticked checkbox without consuming the challenge', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await newUser(api.deps, USER);
    const created = await createChallenge(rp);
    const { agent, page } = await openPage(created.body.url, who);
    const unticked = await answer(agent, page, { code: await totpNow() });
    expect(unticked.external).toBeUndefined();
    expect(unticked.res.status).toBe(400);
    expect(await unticked.res.text()).toContain('Tick the box');
    expect((await findStepUpChallenge(api.deps.store, created.body.challenge_id))?.status).toBe('created');
    const done = await answer(agent, page, { confirm_action: 'yes', code: await totpNow() });
    expect(done.external!.searchParams.get('code')).toBeTruthy();
  });

  it('a user without any factor gets the enroll page and the app gets access_denied', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await newUser(api.deps, { ...USER, totpSecret: undefined });
    const created = await createChallenge(rp);
    const agent = new HttpUser(api.issuer);
    const step = await agent.signIn(await agent.get(created.body.url), who.email, PASSWORD);
    expect(new URL(step.url).pathname).toBe('/oauth/2fa');
    const page = await step.res.text();
    expect(page).toContain('/account/security');
    const back = /href="([^"]*error=access_denied[^"]*)"/.exec(page)![1]!.replace(/&amp;/g, '&');
    const url = new URL(back);
    expect(url.origin + url.pathname).toBe(REDIRECT);
    expect(url.searchParams.get('state')).toBe('st/1');
    await eventually(async () => expect((await findStepUpChallenge(api.deps.store, created.body.challenge_id))?.status).toBe('denied'));
  });

  describe('verify refuses', () => {
    it('an expired code', async () => {
      const rp = await newRp(api.deps, RP);
      const { code } = await confirmWithTotp(rp, await newUser(api.deps, USER));
      await stepUpCodes(api.deps.store).updateOne({ _id: hashSecret(code) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
      const r = await verify(rp, { code });
      expect(r.res.status).toBe(400);
      expect(r.body.error).toBe('invalid_grant');
    });

    it('another client, and a wrong redirect_uri (the code still works for the right ones)', async () => {
      const rp = await newRp(api.deps, RP);
      const { code } = await confirmWithTotp(rp, await newUser(api.deps, USER));
      const other = await verify(await newRp(api.deps, RP), { code });
      expect(other.res.status).toBe(400);
      expect(other.body.error).toBe('invalid_grant');
      const wrongUri = await verify(rp, { code, redirect_uri: 'https://rp.example/2fa/other' });
      expect(wrongUri.res.status).toBe(400);
      expect(wrongUri.body.error).toBe('invalid_grant');
      const badClient = await fetch(`${api.issuer}/api/oauth/2fa/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${rp.id}:wrong`).toString('base64')}` },
        body: new URLSearchParams({ code, redirect_uri: REDIRECT }),
      });
      expect(badClient.status).toBe(401);
      expect(((await badClient.json()) as Json).error).toBe('invalid_client');
      expect((await verify(rp, { code })).res.status).toBe(200);
    });

    it('a wrong or missing PKCE verifier (public client)', async () => {
      const rp = await newRp(api.deps, { ...RP, public: true });
      const verifier = newSecret();
      const { code } = await confirmWithTotp(rp, await newUser(api.deps, USER), { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' });
      const missing = await verify(rp, { code });
      expect(missing.res.status).toBe(400);
      expect(missing.body.error).toBe('invalid_grant');
      const wrong = await verify(rp, { code, code_verifier: newSecret() });
      expect(wrong.res.status).toBe(400);
      expect(wrong.body.error).toBe('invalid_grant');
      const ok = await verify(rp, { code, code_verifier: verifier });
      expect(ok.res.status).toBe(200);
      expect(ok.body.method).toBe('totp');
    });

    it('an unknown code and a missing code', async () => {
      const rp = await newRp(api.deps, RP);
      expect((await verify(rp, { code: newSecret() })).body.error).toBe('invalid_grant');
      const missing = await verify(rp, {});
      expect(missing.res.status).toBe(400);
      expect(missing.body.error).toBe('invalid_request');
    });
  });
});

describe('limits and the passkey endpoint', () => {
  it('limits code attempts to 8 per 5 minutes per user: the 9th is 429 and consumes nothing', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await newUser(api.deps, USER);
    const agent = new HttpUser(api.issuer);
    for (let i = 0; i < 8; i++) {
      const created = await createChallenge(rp);
      const { page } = await openPage(created.body.url, who, agent);
      const done = await answer(agent, page, { confirm_action: 'yes', code: '000000' === (await totpNow()) ? '111111' : '000000' });
      expect(done.external!.searchParams.get('error')).toBe('access_denied');
    }
    const created = await createChallenge(rp);
    const { page } = await openPage(created.body.url, who, agent);
    const limited = await answer(agent, page, { confirm_action: 'yes', code: await totpNow() });
    expect(limited.external).toBeUndefined();
    expect(limited.res.status).toBe(429);
    expect((await findStepUpChallenge(api.deps.store, created.body.challenge_id))?.status).toBe('created');
  });

  it('the passkey answer needs the ticked box, and a failed passkey consumes the challenge', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await newUser(api.deps, USER);
    const created = await createChallenge(rp);
    const { agent, page } = await openPage(created.body.url, who);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
    const id = created.body.challenge_id as string;
    const post = (path: string, body: unknown) =>
      agent.request(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify(body) });
    const options = await post(`/api/oauth/2fa/passkey/options?challenge_id=${id}`, {});
    expect(options.status).toBe(200);
    expect(((await options.json()) as Json).challenge).toEqual(expect.any(String));
    const unticked = await post(`/api/oauth/2fa/passkey?challenge_id=${id}`, { response: { id: 'nope' } });
    expect(unticked.status).toBe(400);
    expect((await findStepUpChallenge(api.deps.store, id))?.status).toBe('created');
    const failed = await post(`/api/oauth/2fa/passkey?challenge_id=${id}&confirm_action=yes`, { response: { id: 'nope' } });
    expect(failed.status).toBe(200);
    const redirect = new URL(((await failed.json()) as Json).redirect);
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe('st/1');
    await eventually(async () => expect((await findStepUpChallenge(api.deps.store, id))?.status).toBe('failed'));
  });
});

describe('the StepUpChallenge workflow timers', () => {
  /** A challenge started directly, with short lifetimes. */
  async function startShort(clientId: string, expiresInMs: number, codeTtlMs: number) {
    const challengeId = crypto.randomUUID();
    const now = Date.now();
    await insertStepUpChallenge(api.deps.store, {
      _id: challengeId,
      clientId,
      redirectUri: REDIRECT,
      state: null,
      codeChallenge: null,
      action: 'short',
      nonce: '',
      requireCaptcha: false,
      status: 'created',
      createdAt: new Date(now),
      expiresAt: new Date(now + expiresInMs),
    });
    const handle = await temporal.workflow.start<typeof stepUpChallenge>('stepUpChallenge', {
      workflowId: stepUpWorkflowId(challengeId),
      taskQueue: api.deps.config.temporal.taskQueue,
      args: [{ challengeId, clientId, expiresAt: now + expiresInMs, codeTtlMs }],
    });
    return { challengeId, handle };
  }

  it('an unanswered challenge expires (projection and audit)', async () => {
    const rp = await newRp(api.deps, RP);
    const { challengeId, handle } = await startShort(rp.id, 1000, 60_000);
    expect(await handle.result()).toBe('expired');
    expect((await stepUpChallenges(api.deps.store).findOne({ _id: challengeId }))?.status).toBe('expired');
    expect(await stepUpAudit(api.deps.store).findOne({ _id: `${challengeId}:expired` })).toMatchObject({ clientId: rp.id, result: 'expired', userId: null });
  });

  it('an issued code expires: verify refuses it', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await newUser(api.deps, USER);
    const { challengeId, handle } = await startShort(rp.id, 60_000, 1500);
    const code = newSecret();
    const confirmed = await handle.executeUpdate(confirmUpdate, { args: [{ userId: who.id, method: 'totp', codeHash: hashSecret(code) }] });
    expect(confirmed.ok).toBe(true);
    expect(await handle.result()).toBe('code_expired');
    expect((await stepUpChallenges(api.deps.store).findOne({ _id: challengeId }))?.status).toBe('code_expired');
    const r = await verify(rp, { code });
    expect(r.res.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
  });
});

describe('challenge lifetime (STEP_UP_CHALLENGE_TTL_SECONDS) and an api on its own database', () => {
  it('a challenge lives as configured, and its workflow writes into the api database', async () => {
    const own = await startTestApi({ STEP_UP_CHALLENGE_TTL_SECONDS: '2', ...testDatabase('stepup_ttl').env });
    try {
      const { client, clientSecret } = await createClient(own.deps.store, {
        name: 'Short',
        allowedScopes: ['openid'],
        redirectUris: [{ type: 'equals', value: REDIRECT }],
        isVerified: true,
      });
      const before = Date.now();
      const res = await fetch(`${own.deps.config.issuer}/api/oauth/2fa/challenges`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}` },
        body: JSON.stringify({ redirect_uri: REDIRECT, action: 'short-lived', nonce: 'n' }),
      });
      expect(res.status).toBe(201);
      const body = (await res.json()) as Json;
      expect(body.expires_at * 1000).toBeLessThanOrEqual(before + 3000);
      const handle = temporal.workflow.getHandle(stepUpWorkflowId(body.challenge_id));
      expect(await handle.result()).toBe('expired');
      // The projection and the audit record are in the api's database, not the worker's.
      expect((await stepUpChallenges(own.deps.store).findOne({ _id: body.challenge_id }))?.status).toBe('expired');
      expect(await stepUpAudit(own.deps.store).findOne({ _id: `${body.challenge_id}:expired` })).toMatchObject({
        clientId: client._id,
        action: 'short-lived',
        result: 'expired',
      });
      expect(await stepUpChallenges(api.deps.store).findOne({ _id: body.challenge_id })).toBeNull();
      const page = await fetch(`${own.deps.config.issuer}/oauth/2fa?challenge_id=${body.challenge_id}`, { redirect: 'manual' });
      expect(page.status).toBe(400);
      expect(await page.text()).toContain('expired or was already answered');
    } finally {
      await own.stop();
    }
  }, 30_000);
});
