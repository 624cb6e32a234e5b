// Limits of the device and step-up flows under parallel requests: every
// attempt takes its slot before anything is verified, so a burst cannot run
// past a limit (a check-then-count limiter let 38 of 40 parallel guesses
// through a limit of 20). An api with a database of its own: using up these
// allowances must not block other test files.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate } from 'otplib';
import { createClient } from '../../../lib/store/clients.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { findStepUpChallenge } from '../../../lib/store/step-up.js';
import { createUser } from '../../../lib/store/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { csrfOf } from '../../support/http.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { enrollFactors } from '../../../tools/fixtures/factors.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { awayFromWindowEdge, countStatuses } from '../../support/limits.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'flow limits password';
const REDIRECT = 'https://limits-rp.example/cb';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const api = useTestApi(testDatabase('flow_limits').env, { beforeStop: (running) => running.deps.store.db.dropDatabase() });

/** A syntactically valid user code that names no device request. */
const wrongUserCode = (i: number) => `BBBB-${'BCDFGHJKLMNPQRSTVWXZ'[i % 20]!.repeat(4)}`;

async function confidentialClient(name: string) {
  const { client, clientSecret } = await createClient(api.deps.store, { name, allowedScopes: ['openid'], redirectUris: [{ type: 'equals', value: REDIRECT }] });
  return { id: client._id, authorization: `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}` };
}

const createChallenge = (authorization: string, fields: Record<string, unknown> = {}) =>
  fetch(`${api.url}/api/oauth/2fa/challenges`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify({ redirect_uri: REDIRECT, action: 'Delete the project', ...fields }),
  });

/** A user with TOTP and backup codes, signed in (password, then a backup code) on the way to a challenge's page. */
async function signedInOnPage(challengeId: string) {
  const email = uniqueEmail('flowlimits');
  const user = await createUser(api.deps.store, { email, password: PASSWORD, name: 'Limits' });
  const backupCodes = await enrollFactors(api.deps.store, api.deps.kek, user._id, TOTP_SECRET);
  const agent = new HttpUser(api.url);
  let step = await agent.get(`/oauth/2fa?challenge_id=${challengeId}`);
  step = await agent.signIn(step, email, PASSWORD);
  step = await agent.submit(await step.res.text(), '/login/second-factor', { code: backupCodes[0]! });
  expect(new URL(step.url).pathname).toBe('/oauth/2fa');
  return { agent, csrf: csrfOf(await step.res.text()) };
}

const answer = (agent: HttpUser, fields: Record<string, string>) =>
  agent.request('/api/oauth/2fa/authorize', {
    method: 'POST',
    headers: FORM,
    body: new URLSearchParams({ confirm_action: 'yes', decision: 'confirm', ...fields }),
  });

describe('wrong user codes on the device page', () => {
  /** Posts `count` wrong codes at once from the given addresses (one per request, cycling). */
  async function guessInParallel(count: number, addresses: string[]) {
    const agent = new HttpUser(api.url);
    const csrf = csrfOf(await (await agent.get('/device')).res.text());
    const responses = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        agent.request('/device', {
          method: 'POST',
          headers: { ...FORM, 'x-forwarded-for': addresses[i % addresses.length]! },
          body: new URLSearchParams({ csrf, user_code: wrongUserCode(i) }),
        }),
      ),
    );
    const pages = await Promise.all(responses.map((r) => r.text()));
    return { statuses: responses.map((r) => r.status), pages };
  }

  it('50 at once from one address: 20 are looked up ("wrong code"), the rest are 429', async () => {
    await awayFromWindowEdge(15 * 60_000, 60_000);
    const { statuses, pages } = await guessInParallel(50, ['198.51.100.10']);
    const counts = countStatuses(statuses);
    expect(counts[400]).toBe(20);
    expect((counts[400] ?? 0) + (counts[429] ?? 0)).toBe(50);
    pages.forEach((page, i) => expect(page).toContain(statuses[i] === 400 ? 'That code is not valid' : 'Too many wrong codes'));
  });

  it('addresses of one IPv6 /64 share one allowance; another /64 has its own', async () => {
    await awayFromWindowEdge(15 * 60_000, 60_000);
    const addresses = Array.from({ length: 30 }, (_, i) => `2001:db8:1:2::${(i + 1).toString(16)}`);
    const counts = countStatuses((await guessInParallel(30, addresses)).statuses);
    expect(counts).toEqual({ 400: 20, 429: 10 });
    expect((await guessInParallel(1, ['2001:db8:1:3::1'])).statuses).toEqual([400]);
  });
});

describe('step-up code attempts', () => {
  it('50 wrong TOTP codes at once on 50 challenges of one user: 8 are checked (access_denied, challenge consumed), the rest are 429 with the challenge untouched', async () => {
    const rp = await confidentialClient('Step-up limits RP');
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await createChallenge(rp.authorization);
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as Json).challenge_id);
    }
    const { agent, csrf } = await signedInOnPage(ids[0]!);

    await awayFromWindowEdge(5 * 60_000, 60_000);
    const now = await generate({ secret: TOTP_SECRET, epoch: Math.floor(Date.now() / 1000) });
    const wrong = now === '000000' ? '111111' : '000000';
    const responses = await Promise.all(ids.map((id) => answer(agent, { csrf, challenge_id: id, code: wrong })));
    const checked: string[] = [];
    const limited: string[] = [];
    responses.forEach((res, i) => {
      if (res.status === 429) return limited.push(ids[i]!);
      expect(res.status).toBe(303);
      const back = new URL(res.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(REDIRECT);
      expect(back.searchParams.get('error')).toBe('access_denied');
      checked.push(ids[i]!);
    });
    expect(checked.length).toBe(8);
    expect(limited.length).toBe(50 - checked.length);
    for (const id of checked) expect((await findStepUpChallenge(api.deps.store, id))?.status).toBe('failed');
    for (const id of limited) expect((await findStepUpChallenge(api.deps.store, id))?.status).toBe('created');
  }, 180_000);

  it('a required captcha is counted before it is checked: of 20 failing answers at once, 8 reach the provider, the rest are 429', async () => {
    // A provider's verify endpoint that fails every token and counts the calls.
    let calls = 0;
    const provider = http.createServer((req, res) => {
      calls++;
      req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":false}'));
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', () => resolve()));
    try {
      // The site gate stays off: only this challenge asks for the captcha.
      await setSiteSetting(api.deps.store, 'captcha_provider', 'hcaptcha');
      await setSiteSetting(api.deps.store, 'captcha_secret_key', 'provider-secret', api.deps.kek);
      await setSiteSetting(api.deps.store, 'captcha_verify_url', `http://127.0.0.1:${(provider.address() as AddressInfo).port}/siteverify`);
      const rp = await confidentialClient('Captcha limits RP');
      const created = await createChallenge(rp.authorization, { require_captcha: true });
      const id = ((await created.json()) as Json).challenge_id as string;
      const { agent, csrf } = await signedInOnPage(id);
      await awayFromWindowEdge(5 * 60_000, 60_000);
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => answer(agent, { csrf, challenge_id: id, code: '000000', captcha_token: 'not-solved' })),
      );
      const counts = countStatuses(responses.map((r) => r.status));
      expect(counts[400]).toBe(8);
      expect((counts[400] ?? 0) + (counts[429] ?? 0)).toBe(20);
      expect(calls).toBe(counts[400]);
      expect((await findStepUpChallenge(api.deps.store, id))?.status).toBe('created');
    } finally {
      await setSiteSetting(api.deps.store, 'captcha_provider', 'none');
      provider.closeAllConnections();
      await new Promise<void>((resolve) => provider.close(() => resolve()));
    }
  }, 120_000);
});

describe('step-up challenge creation', () => {
  it('100 at once for one client: 60 are 201, the rest 429 slow_down with Retry-After', async () => {
    await awayFromWindowEdge(60_000, 30_000);
    const rp = await confidentialClient('Challenge flood RP');
    const responses = await Promise.all(Array.from({ length: 100 }, () => createChallenge(rp.authorization)));
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as Json[];
    const counts = countStatuses(responses.map((r) => r.status));
    expect(counts[201]).toBe(60);
    expect((counts[201] ?? 0) + (counts[429] ?? 0)).toBe(100);
    responses.forEach((res, i) => {
      if (res.status !== 429) return;
      expect(bodies[i]).toEqual({ error: 'slow_down', error_description: expect.any(String) });
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    });
  }, 180_000);
});
