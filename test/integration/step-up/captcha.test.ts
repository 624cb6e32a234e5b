// The captcha gate of step-up 2FA over HTTP: when it applies
// (site gate, challenge's require_captcha, provider none), a third-party
// provider answered by a local fake verify server, and the self-hosted proof
// of work (info issues a challenge; right nonce, wrong nonce, reuse).
//
// Site settings are global, so this file runs its own api on its own database
// (captcha_<ts>); the StepUpChallenge workflow writes its projection there too
// (its input names the api's database). A passing captcha is mostly shown by
// what comes after it: an empty authentication code gets "Enter an
// authentication code" (the factor check, which consumes nothing); one test
// goes on to confirm with TOTP. A failed captcha leaves the challenge `created`.
import { generate } from 'otplib';
import { checkPow, solvePow } from '../../../lib/model/captcha.js';
import type { NewClientInput } from '../../../lib/model/clients.js';
import { type SiteSettings, SECRET_IS_SET } from '../../../lib/model/site-settings.js';
import { getSiteSettings, siteSecret } from '../../../lib/store/settings.js';
import { findStepUpChallenge } from '../../../lib/store/step-up.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newRp } from '../../../tools/fixtures/clients.js';
import { testDatabase } from '../../support/database.js';
import { setCaptchaSettings, startFakeCaptchaProvider, type FakeCaptchaProvider } from '../../support/captcha.js';

const PASSWORD = 'captcha test password';
const REDIRECT = 'https://rp.example/2fa/callback';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

let fake: FakeCaptchaProvider;
let fakeUrl: string;
/** Requests the fake verify server received (form fields). */
let verifyCalls: URLSearchParams[];

const api = useTestApi(testDatabase('captcha').env);
beforeAll(async () => {
  // A provider's verify endpoint: token "good" passes, anything else fails.
  fake = await startFakeCaptchaProvider('shh-secret', 'good');
  fakeUrl = fake.url;
  verifyCalls = fake.calls;
});
afterAll(async () => {
  await fake.close();
});

const settings = (values: Partial<SiteSettings>) => setCaptchaSettings(api.deps, values);

const RP: NewClientInput = { name: 'Captcha RP', allowedScopes: ['openid'], redirectUris: [{ type: 'equals', value: REDIRECT }], isVerified: true };

async function createChallenge(fields: Record<string, unknown> = {}) {
  const res = await fetch(`${api.issuer}/api/oauth/2fa/challenges`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(await newRp(api.deps, RP)).headers },
    body: JSON.stringify({ redirect_uri: REDIRECT, action: 'Delete the repository', nonce: 'n', state: 's', ...fields }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
}

const USER = { prefix: 'captcha', password: PASSWORD, name: 'Captcha', totpSecret: TOTP_SECRET };

/** Signs in (password, then a backup code) on the way to the confirmation page. */
async function openPage(url: string) {
  const who = await newUser(api.deps, USER);
  const agent = new HttpUser(api.issuer);
  let step = await agent.get(url);
  step = await agent.signIn(step, who.email, PASSWORD);
  if (new URL(step.url).pathname === '/login/second-factor')
    step = await agent.submit(await step.res.text(), '/login/second-factor', { code: who.backupCodes.pop()! });
  expect(new URL(step.url).pathname).toBe('/oauth/2fa');
  return { agent, page: await step.res.text() };
}

/** What the page says when the captcha passed and the (empty) code was checked next. */
const PASSED = 'Enter an authentication code or use a passkey.';
const totpNow = () => generate({ secret: TOTP_SECRET, epoch: Math.floor(Date.now() / 1000) });
/** Submits the confirm form with a current TOTP code (each test uses one new user, so the code confirms once). */
const answer = async (agent: HttpUser, page: string, fields: Record<string, string>) =>
  agent.submit(page, '/api/oauth/2fa/authorize', { confirm_action: 'yes', code: await totpNow(), ...fields });
const info = async (id: string) => (await (await fetch(`${api.issuer}/api/oauth/2fa/info?challenge_id=${id}`)).json()) as Json;

describe('when the captcha gate applies', () => {
  it('site gate on while the challenge asks none: required; a missing or failed answer shows the page again without consuming the challenge', async () => {
    await settings({
      require_captcha_for_2fa: true,
      captcha_provider: 'hcaptcha',
      captcha_site_key: 'site-key-1',
      captcha_secret_key: 'shh-secret',
      captcha_verify_url: fakeUrl,
    });
    const created = await createChallenge();
    expect(await info(created.challenge_id)).toEqual({
      captcha_required: true,
      captcha_provider: 'hcaptcha',
      captcha_site_key: 'site-key-1',
      action: 'Delete the repository',
      client_name: 'Captcha RP',
    });
    const { agent, page } = await openPage(created.url);
    expect(page).toContain('Captcha answer');
    expect(page).toContain('name="captcha_token"');

    const missing = await answer(agent, page, {});
    expect(missing.res.status).toBe(400);
    expect(await missing.res.text()).toContain('Answer the captcha first.');
    const failed = await answer(agent, page, { captcha_token: 'bad' });
    expect(failed.res.status).toBe(400);
    expect(await failed.res.text()).toContain('could not be verified');
    expect(verifyCalls.at(-1)!.get('response')).toBe('bad');
    expect(verifyCalls.at(-1)!.get('secret')).toBe('shh-secret');
    // Not consumed: the same challenge confirms with a passing captcha.
    expect((await findStepUpChallenge(api.deps.store, created.challenge_id))!.status).toBe('created');
    const passed = await answer(agent, page, { code: '', captcha_token: 'good' });
    expect(passed.res.status).toBe(400);
    expect(await passed.res.text()).toContain(PASSED);
  });

  it('challenge asks require_captcha while the site gate is off: required (turnstile via the fake server)', async () => {
    await settings({ captcha_provider: 'turnstile', captcha_secret_key: 'shh-secret', captcha_verify_url: fakeUrl });
    const plain = await createChallenge();
    expect((await info(plain.challenge_id)).captcha_required).toBe(false);
    const created = await createChallenge({ require_captcha: true });
    expect(await info(created.challenge_id)).toMatchObject({ captcha_required: true, captcha_provider: 'turnstile', captcha_site_key: null });
    const { agent, page } = await openPage(created.url);
    const failed = await answer(agent, page, { captcha_token: 'nope' });
    expect(failed.res.status).toBe(400);
    const passed = await answer(agent, page, { code: '', captcha_token: 'good' });
    expect(passed.res.status).toBe(400);
    expect(await passed.res.text()).toContain(PASSED);
    // The whole path: a passing captcha with a TOTP code issues the code to the app.
    const confirmed = await answer(agent, page, { captcha_token: 'good' });
    const back = confirmed.external!;
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('code')).toBeTruthy();
    expect(back.searchParams.get('state')).toBe('s');
    expect((await findStepUpChallenge(api.deps.store, created.challenge_id))!.status).toBe('issued');
  });

  it('provider none: the gate has no effect, even with the site gate on and the challenge asking', async () => {
    await settings({ require_captcha_for_2fa: true, captcha_provider: 'none' });
    const created = await createChallenge({ require_captcha: true });
    expect(await info(created.challenge_id)).toEqual({
      captcha_required: false,
      captcha_provider: 'none',
      captcha_site_key: null,
      action: 'Delete the repository',
      client_name: 'Captcha RP',
    });
    const { agent, page } = await openPage(created.url);
    expect(page).not.toContain('captcha_token');
    const passed = await answer(agent, page, { code: '' });
    expect(passed.res.status).toBe(400);
    expect(await passed.res.text()).toContain(PASSED);
  });

  it('an unreachable provider is a failed captcha, not an error', async () => {
    await settings({
      require_captcha_for_2fa: true,
      captcha_provider: 'recaptcha',
      captcha_secret_key: 'shh-secret',
      captcha_verify_url: 'http://127.0.0.1:9/siteverify',
    });
    const created = await createChallenge();
    const { agent, page } = await openPage(created.url);
    const failed = await answer(agent, page, { captcha_token: 'good' });
    expect(failed.res.status).toBe(400);
    expect(await failed.res.text()).toContain('could not be verified');
  });
});

describe('proof of work', () => {
  it('info issues a challenge; a wrong nonce fails, a reused pow_challenge fails, a fresh correct one passes', async () => {
    await settings({ require_captcha_for_2fa: true, captcha_provider: 'pow', pow_difficulty: 8 });
    const created = await createChallenge();
    const first = await info(created.challenge_id);
    expect(first).toMatchObject({
      captcha_required: true,
      captcha_provider: 'pow',
      captcha_site_key: null,
      pow_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{16,}$/),
      pow_difficulty: 8,
    });
    const { agent, page } = await openPage(created.url);
    expect(page).toContain('role="status"');
    expect(page).toContain('/assets/captcha.js');

    let wrong = 0;
    while (checkPow(first.pow_challenge, String(wrong), 8)) wrong++;
    const failed = await answer(agent, page, { pow_challenge: first.pow_challenge, pow_nonce: String(wrong) });
    expect(failed.res.status).toBe(400);
    expect(await failed.res.text()).toContain('browser check failed');
    // Single use: the same pow_challenge with a correct nonce is refused now.
    const reused = await answer(agent, page, { pow_challenge: first.pow_challenge, pow_nonce: solvePow(first.pow_challenge, 8) });
    expect(reused.res.status).toBe(400);
    expect(await reused.res.text()).toContain('already used');
    // A pow_challenge issued for another step-up challenge is not accepted either.
    const other = await info((await createChallenge()).challenge_id);
    const foreign = await answer(agent, page, { pow_challenge: other.pow_challenge, pow_nonce: solvePow(other.pow_challenge, 8) });
    expect(foreign.res.status).toBe(400);

    const fresh = await info(created.challenge_id);
    expect(fresh.pow_challenge).not.toBe(first.pow_challenge);
    const passed = await answer(agent, page, { code: '', pow_challenge: fresh.pow_challenge, pow_nonce: solvePow(fresh.pow_challenge, 8) });
    expect(passed.res.status).toBe(400);
    expect(await passed.res.text()).toContain(PASSED);
  });

  it('failed captchas count toward the 8 attempts per 5 minutes', async () => {
    await settings({ require_captcha_for_2fa: true, captcha_provider: 'pow', pow_difficulty: 8 });
    const created = await createChallenge();
    const { agent, page } = await openPage(created.url);
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await answer(agent, page, { pow_challenge: 'x', pow_nonce: '1' })).res.status);
    expect(statuses.slice(0, 8)).toEqual(Array(8).fill(400));
    expect(statuses[8]).toBe(429);
  });
});

describe('the captcha secret key at rest', () => {
  it('is stored sealed with the KEK: the stored document never holds it, the settings read it as set', async () => {
    await settings({ captcha_provider: 'hcaptcha', captcha_secret_key: 'shh-secret', captcha_verify_url: fakeUrl });
    const raw = JSON.stringify(await api.deps.store.settings.findOne({ _id: 'site' }));
    expect(raw).toContain('captcha_secret_key');
    expect(raw).not.toContain('shh-secret');
    expect((await getSiteSettings(api.deps.store)).captcha_secret_key).toBe(SECRET_IS_SET);
    expect(await siteSecret(api.deps.store, api.deps.kek, 'captcha_secret_key')).toBe('shh-secret');
  });
});
