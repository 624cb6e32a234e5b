// Sudo mode on the step-up confirmation page over HTTP: the
// opt-in after a factor, the checkbox-alone confirmation (method `sudo`) for
// the same client and session, another client, revoke, TTL 0, sign-out, and
// the unticked checkbox on the sudo path.
//
// Database: `sudo_mode_ttl_minutes` is a global site setting, so this api uses
// a database of its own (the workflows write their projections into the api's
// database); beforeEach sets it to 10 (each test reads it from the page, never
// assumes it), the TTL 0 test sets 0 right before it loads the page. The page
// reads the setting once per request and uses that value for both the offer
// and the sudo path.
//
// Factors here are backup codes (single use; TOTP codes of one time step cannot
// be used twice).
import type { NewClientInput } from '../../../lib/model/clients.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { sudoWindows } from '../../../lib/store/sudo-windows.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { withPkce, withVerifier } from '../../../tools/fixtures/pkce.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newRp, type FixtureRp } from '../../../tools/fixtures/clients.js';

const PASSWORD = 'step-up sudo password';
const REDIRECT = 'https://sudo-page-rp.example/cb';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const OPT_IN =
  /<input type="checkbox" name="sudo" value="yes" data-step-up-sudo> Don&#39;t ask again for (\d+) minutes|<input type="checkbox" name="sudo" value="yes" data-step-up-sudo> Don't ask again for (\d+) minutes/;

const api = useTestApi({ MONGODB_DATABASE: 'keyflow_test_stepup_sudo' });
beforeEach(async () => {
  await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 10);
});

const RP: NewClientInput = {
  name: 'Sudo page RP',
  allowedScopes: ['openid'],
  redirectUris: [{ type: 'equals', value: REDIRECT }],
  idTokenSignedResponseAlg: 'RS256',
};

async function createChallenge(rp: FixtureRp, action = 'Delete the repository') {
  const res = await fetch(`${api.issuer}/api/oauth/2fa/challenges`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: rp.basic },
    body: JSON.stringify({ redirect_uri: REDIRECT, action, nonce: 'n-1', state: 's-1' }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as Json).url as string;
}

async function verify(rp: FixtureRp, code: string) {
  const res = await fetch(`${api.issuer}/api/oauth/2fa/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: rp.basic },
    body: new URLSearchParams({ code, redirect_uri: REDIRECT }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** A user with an authenticator app and backup codes, signed in over HTTP (a backup code as the sign-in's second factor). */
async function signedInUser() {
  const { email, id, backupCodes } = await newUser(api.deps, { prefix: 'stepup-sudo', password: PASSWORD, totpSecret: TOTP_SECRET });
  return { email, userId: id, backupCodes, agent: new HttpUser(api.issuer) };
}
type Who = Awaited<ReturnType<typeof signedInUser>>;

/** Opens the confirmation page, signing in on the way when needed. */
async function openPage(url: string, who: Who) {
  let step = await who.agent.get(url);
  if (new URL(step.url).pathname === '/login') {
    step = await who.agent.signIn(step, who.email, PASSWORD);
    if (new URL(step.url).pathname === '/login/second-factor')
      step = await who.agent.submit(await step.res.text(), '/login/second-factor', { code: who.backupCodes.pop()! });
  }
  expect(new URL(step.url).pathname).toBe('/oauth/2fa');
  return step.res.text();
}

const answer = (who: Who, page: string, fields: Record<string, string>) => who.agent.submit(page, '/api/oauth/2fa/authorize', fields);
const isSudoPage = (page: string) => page.includes('name="decision" value="sudo"') && !page.includes('name="code"');
const isFactorPage = (page: string) => page.includes('name="code"') && !page.includes('value="sudo"');

/** A factor confirmation (backup code), with or without the opt-in; returns the verify result. */
async function confirmWithFactor(rp: FixtureRp, who: Who, optIn: boolean) {
  const page = await openPage(await createChallenge(rp), who);
  expect(isFactorPage(page)).toBe(true);
  const done = await answer(who, page, { confirm_action: 'yes', code: who.backupCodes.pop()!, ...(optIn ? { sudo: 'yes' } : {}) });
  expect(done.external?.searchParams.get('error')).toBeNull();
  const verified = await verify(rp, done.external!.searchParams.get('code')!);
  expect(verified.status).toBe(200);
  expect(verified.body.method).toBe('backup');
  return verified.body;
}

/** A confirmation on the sudo page with the checkbox alone; returns the verify result. */
async function confirmWithSudo(rp: FixtureRp, who: Who) {
  const page = await openPage(await createChallenge(rp), who);
  expect(isSudoPage(page)).toBe(true);
  const done = await answer(who, page, { confirm_action: 'yes', decision: 'sudo' });
  expect(done.external?.origin).toBe('https://sudo-page-rp.example');
  expect(done.external!.searchParams.get('state')).toBe('s-1');
  const verified = await verify(rp, done.external!.searchParams.get('code')!);
  expect(verified.status).toBe(200);
  return verified.body;
}

describe('sudo mode on the confirmation page', () => {
  it('offers the opt-in; once ticked, a second challenge of the same client is confirmed with the checkbox alone (method sudo)', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await signedInUser();
    const first = await openPage(await createChallenge(rp), who);
    const offered = OPT_IN.exec(first);
    expect(offered).not.toBeNull();
    expect(Number(offered![1] ?? offered![2])).toBeGreaterThan(0);
    const done = await answer(who, first, { confirm_action: 'yes', code: who.backupCodes.pop()!, sudo: 'yes' });
    expect((await verify(rp, done.external!.searchParams.get('code')!)).body.method).toBe('backup');

    const result = await confirmWithSudo(rp, who);
    expect(result).toMatchObject({ user_id: who.userId, client_id: rp.id, action: 'Delete the repository', nonce: 'n-1', method: 'sudo' });
    // The window is still open: a third one too.
    expect((await confirmWithSudo(rp, who)).method).toBe('sudo');
  });

  it('without the opt-in no window opens: the next challenge needs a factor', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await signedInUser();
    await confirmWithFactor(rp, who, false);
    await confirmWithFactor(rp, who, false);
  });

  it('a challenge of another client still needs a factor', async () => {
    const [rp, other] = [await newRp(api.deps, RP), await newRp(api.deps, RP)];
    const who = await signedInUser();
    await confirmWithFactor(rp, who, true);
    await confirmWithFactor(other, who, false);
    expect((await confirmWithSudo(rp, who)).method).toBe('sudo');
  });

  it('refuses an unticked checkbox on the sudo path too (400, the page again, the challenge not consumed)', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await signedInUser();
    await confirmWithFactor(rp, who, true);
    const page = await openPage(await createChallenge(rp), who);
    expect(isSudoPage(page)).toBe(true);
    const refused = await answer(who, page, { decision: 'sudo' });
    expect(refused.external).toBeUndefined();
    expect(refused.res.status).toBe(400);
    const again = await refused.res.text();
    expect(again).toContain('Tick the box');
    expect(isSudoPage(again)).toBe(true);
    const done = await answer(who, again, { confirm_action: 'yes', decision: 'sudo' });
    expect((await verify(rp, done.external!.searchParams.get('code')!)).body.method).toBe('sudo');
  });

  it('after POST /api/oauth/2fa/sudo/revoke (access token of the session) the next challenge needs a factor; a window ending after page load falls back to the factor form', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await signedInUser();
    await confirmWithFactor(rp, who, true);
    // An access token of this browser session (its sid claim) from the code flow.
    const authz = await who.agent.get(
      `/api/oauth/authorize?${new URLSearchParams(withPkce({ response_type: 'code', client_id: rp.id, redirect_uri: REDIRECT, scope: 'openid' }))}`,
    );
    const consented = authz.external ? authz : await who.agent.submit(await authz.res.text(), '/consent', { decision: 'allow' });
    const tokenRes = await fetch(`${api.issuer}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: rp.basic },
      body: new URLSearchParams(
        withVerifier({ grant_type: 'authorization_code', code: consented.external!.searchParams.get('code')!, redirect_uri: REDIRECT }),
      ),
    });
    const accessToken = ((await tokenRes.json()) as Json).access_token as string;

    // The sudo page is loaded, then the window is revoked before the submit.
    const page = await openPage(await createChallenge(rp), who);
    expect(isSudoPage(page)).toBe(true);
    const revoke = await fetch(`${api.issuer}/api/oauth/2fa/sudo/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ client_id: rp.id }),
    });
    expect(revoke.status).toBe(200);
    expect(await revoke.json()).toEqual({ revoked: true });
    const fellBack = await answer(who, page, { confirm_action: 'yes', decision: 'sudo' });
    expect(fellBack.external).toBeUndefined();
    expect(fellBack.res.status).toBe(400);
    const factorPage = await fellBack.res.text();
    expect(isFactorPage(factorPage)).toBe(true);
    // Not consumed: the same challenge is confirmed with a factor.
    const done = await answer(who, factorPage, { confirm_action: 'yes', code: who.backupCodes.pop()! });
    expect((await verify(rp, done.external!.searchParams.get('code')!)).body.method).toBe('backup');
    // And the next challenge asks for a factor again.
    await confirmWithFactor(rp, who, false);
  });

  it('TTL 0: no opt-in offered, no window opened even when the opt-in is sent', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await signedInUser();
    await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 0);
    const page = await openPage(await createChallenge(rp), who);
    expect(page).not.toMatch(OPT_IN);
    expect(isFactorPage(page)).toBe(true);
    const done = await answer(who, page, { confirm_action: 'yes', code: who.backupCodes.pop()!, sudo: 'yes' });
    expect((await verify(rp, done.external!.searchParams.get('code')!)).body.method).toBe('backup');
    expect(await sudoWindows(api.deps.store).findOne({ userId: who.userId, clientId: rp.id })).toBeNull();
    const next = await openPage(await createChallenge(rp), who);
    expect(isFactorPage(next)).toBe(true);
  });

  it('sign-out then sign-in: a factor is needed again', async () => {
    const rp = await newRp(api.deps, RP);
    const who = await signedInUser();
    await confirmWithFactor(rp, who, true);
    expect((await confirmWithSudo(rp, who)).method).toBe('sudo');
    const account = await who.agent.get('/account');
    await who.agent.submit(await account.res.text(), '/logout', {});
    // openPage signs in again: a new session with a new sid.
    await confirmWithFactor(rp, who, false);
  });
});
