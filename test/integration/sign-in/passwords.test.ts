// Passwords: at least 12 characters and not a common (leaked) password,
// wherever one is set: `keyflow users create` and the change-password page.
// Changing it needs the current password (limited like a sign-in) and signs
// the user's other sessions out. Hashes carry their cost: raising
// PASSWORD_HASH_COST re-hashes each password at its owner's next sign-in.
import { createUser, findUserByEmail } from '../../../lib/store/users.js';
import { setPasswordHashCost } from '../../../lib/security/password.js';
import { startTestApi, useTestApi } from '../../support/harness.js';
import { csrfOf } from '../../support/http.js';
import { runCli } from '../../support/cli.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';

const PASSWORD = 'passwords test passphrase';
const NEW_PASSWORD = 'violet tractor umbrella';

const api = useTestApi({ MONGODB_DATABASE: `passwords_${Date.now()}`, SIGNIN_LIMIT_PER_ACCOUNT: '4' });

const post = (agent: HttpUser, path: string, fields: Record<string, string>) =>
  agent.request(path, { method: 'POST', body: new URLSearchParams(fields), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

async function signIn(email: string, password = PASSWORD, issuer = api.issuer) {
  const agent = new HttpUser(issuer);
  const page = await (await agent.get('/login')).res.text();
  const res = await post(agent, '/login', { email, password, csrf: csrfOf(page) });
  return { agent, res };
}
const signedIn = async (agent: HttpUser) => (await agent.request('/account')).status === 200;

describe('keyflow users create', () => {
  it.each([
    ['eleven char', /password: must be at least 12 characters/],
    ['password1234', /password: is too common/],
    ['Password2024!', /password: is too common/],
    ['dragondragon', /password: is too common/],
    ['   aaaaaaaaaaaa   ', /password: is too common/],
  ])('refuses %j', async (password, message) => {
    const env = { MONGODB_DATABASE: api.deps.config.mongo.database };
    const r = await runCli(['users', 'create', '--email', uniqueEmail('cli-pw'), '--password', password], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('accepts a long uncommon password', async () => {
    const r = await runCli(['users', 'create', '--email', uniqueEmail('cli-pw'), '--password', NEW_PASSWORD], {
      MONGODB_DATABASE: api.deps.config.mongo.database,
    });
    expect(r.code).toBe(0);
  });
});

describe('the change-password page', () => {
  it('checks the current password and the new one, then signs the other sessions out', async () => {
    const email = uniqueEmail('change');
    await createUser(api.deps.store, { email, password: PASSWORD });
    const { agent } = await signIn(email);
    const { agent: other } = await signIn(email);
    const page = await (await agent.get('/account/password')).res.text();
    expect(page).toContain('<label for="current">Current password</label>');
    const csrf = csrfOf(page);

    const cases: [Record<string, string>, number, string][] = [
      [{ current: 'not my password at all', password: NEW_PASSWORD, confirm: NEW_PASSWORD }, 401, 'Your current password is not right.'],
      [{ current: PASSWORD, password: NEW_PASSWORD, confirm: `${NEW_PASSWORD}!` }, 400, 'The two new passwords are not the same.'],
      [{ current: PASSWORD, password: 'too short', confirm: 'too short' }, 400, 'at least 12 characters'],
      [{ current: PASSWORD, password: 'qwertyuiop123', confirm: 'qwertyuiop123' }, 400, 'is too common'],
      [{ current: PASSWORD, password: PASSWORD, confirm: PASSWORD }, 400, 'other than your current one'],
    ];
    for (const [fields, status, text] of cases) {
      const res = await post(agent, '/account/password', { csrf, ...fields });
      expect({ fields, status: res.status, said: (await res.text()).includes(text) }).toEqual({ fields, status, said: true });
    }
    expect((await post(agent, '/account/password', { csrf: 'forged', current: PASSWORD, password: NEW_PASSWORD, confirm: NEW_PASSWORD })).status).toBe(400);
    expect(await signedIn(other)).toBe(true);

    const done = await post(agent, '/account/password', { csrf, current: PASSWORD, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Your other session was signed out.');
    expect(await signedIn(agent)).toBe(true);
    expect(await signedIn(other)).toBe(false);
    expect((await signIn(email, PASSWORD)).res.status).toBe(401);
    expect((await signIn(email, NEW_PASSWORD)).res.headers.get('location')).toBe('/account');
  });

  it('counts wrong current passwords as failed sign-ins of the account', async () => {
    const email = uniqueEmail('guess');
    await createUser(api.deps.store, { email, password: PASSWORD });
    const { agent } = await signIn(email);
    const csrf = csrfOf(await (await agent.get('/account/password')).res.text());
    const attempt = (current: string) => post(agent, '/account/password', { csrf, current, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => attempt(`wrong guess number ${i}`).then((r) => r.status)));
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(6);
    // The account is paused, for this page and for sign-in alike.
    expect((await attempt(PASSWORD)).status).toBe(429);
    expect((await signIn(email)).res.status).toBe(429);
  });
});

describe('the password hash cost', () => {
  const storedCost = async (email: string) => (await findUserByEmail(api.deps.store, email))!.passwordHash.split('$').slice(0, 4).join('$');

  it('re-hashes a cheaper hash at its next sign-in, after which the password still signs in and a wrong one does not', async () => {
    const email = uniqueEmail('rehash');
    await createUser(api.deps.store, { email, password: PASSWORD });
    // The suite's cost (PASSWORD_HASH_COST=10): N = 1024.
    expect(await storedCost(email)).toBe('scrypt$1024$8$1');
    const raised = await startTestApi({ MONGODB_DATABASE: api.deps.config.mongo.database, PASSWORD_HASH_COST: '11' });
    try {
      expect(await signedIn((await signIn(email, PASSWORD, raised.url)).agent)).toBe(true);
      expect(await storedCost(email)).toBe('scrypt$2048$8$1');
      expect(await signedIn((await signIn(email, PASSWORD, raised.url)).agent)).toBe(true);
      expect((await signIn(email, NEW_PASSWORD, raised.url)).res.status).toBe(401);
      expect(await storedCost(email)).toBe('scrypt$2048$8$1');
    } finally {
      await raised.stop();
      setPasswordHashCost(api.deps.config.passwordHashCost);
    }
  });

  it('is what `keyflow users create` hashes with', async () => {
    const email = uniqueEmail('cli-cost');
    const r = await runCli(['users', 'create', '--email', email, '--password', NEW_PASSWORD], {
      MONGODB_DATABASE: api.deps.config.mongo.database,
      PASSWORD_HASH_COST: '12',
    });
    expect(r.code).toBe(0);
    expect(await storedCost(email)).toBe('scrypt$4096$8$1');
  });
});
