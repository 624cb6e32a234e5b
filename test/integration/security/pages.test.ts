// Browser-facing safety of the pages: session cookie attributes, sid rotation,
// CSRF on every form, CSP, escaping, and sign-in attempt limits.
import { s256Challenge } from '../../../lib/model/pkce.js';
import { createClient } from '../../../lib/store/clients.js';
import { hashSecret } from '../../../lib/security/secrets.js';
import { createUser } from '../../../lib/store/users.js';
import { useTestApi, type ApiUnderTest, startTestApi, type Json } from '../../support/harness.js';
import { csrfOf } from '../../support/http.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';

const PASSWORD = 'pages test password';
const REDIRECT = 'https://pages-rp.example/cb';
const VERIFIER = 'pages-test-code-verifier-0123456789-abcdefghijklmnop';
const PKCE = `&code_challenge=${s256Challenge(VERIFIER)}&code_challenge_method=S256`;

const api = useTestApi();

const sessionCookie = (res: Response) => res.headers.getSetCookie().find((c) => /^(__Host-)?kf_session=/.test(c));

async function signedInAgent() {
  const email = uniqueEmail('pages');
  await createUser(api.deps.store, { email, password: PASSWORD });
  const agent = new HttpUser(api.issuer);
  const login = await agent.get('/login');
  const after = await agent.signIn(login, email, PASSWORD);
  return { agent, email, after };
}

/** The response to a password sign-in at `base` (the user is created in `target`'s database). */
async function signInResponse(target: ApiUnderTest, base: string) {
  const email = uniqueEmail('cookie');
  await createUser(target.deps.store, { email, password: PASSWORD });
  const agent = new HttpUser(base);
  const page = await (await agent.get('/login')).res.text();
  const res = await agent.request('/login', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password: PASSWORD, csrf: csrfOf(page) }),
  });
  return { agent, res };
}

describe('session cookie', () => {
  it('is HttpOnly, SameSite=Lax, not Secure on an http issuer', async () => {
    const cookie = sessionCookie((await signInResponse(api, api.issuer)).res)!;
    expect(cookie).toMatch(/^kf_session=/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/; Secure/);
  });

  it('is Secure when the issuer is https', async () => {
    const secureApi = await startTestApi({ ISSUER: 'https://id.keyflow.test', PASSWORD_HASH_COST: '15' });
    try {
      expect(sessionCookie((await signInResponse(secureApi, secureApi.url)).res)).toMatch(/; Secure/);
    } finally {
      await secureApi.stop();
    }
  });

  it('rotates the session (and sid) at sign-in and ends it at sign-out', async () => {
    const email = uniqueEmail('rotate');
    await createUser(api.deps.store, { email, password: PASSWORD });
    const agent = new HttpUser(api.issuer);
    const signInOnce = async () => {
      const page = await (await agent.get('/login')).res.text();
      return agent.request('/login', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email, password: PASSWORD, csrf: csrfOf(page) }),
      });
    };
    const first = sessionCookie(await signInOnce())!;
    const second = sessionCookie(await signInOnce())!;
    expect(second).not.toBe(first);
    // The earlier session no longer exists.
    const firstToken = first.split(';')[0]!.split('=')[1]!;
    expect(await api.deps.store.sessions.findOne({ _id: hashSecret(firstToken) })).toBeNull();

    const account = await agent.get('/account');
    const csrf = csrfOf(await account.res.text());
    const out = await agent.request('/logout', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf }),
    });
    expect(out.status).toBe(200);
    expect(sessionCookie(out)).toMatch(/Max-Age=0/);
    // Signed out: the account page sends to sign-in.
    expect((await agent.request('/account')).headers.get('location')).toBe('/login');
  });

  it('gives each sign-in a new sid', async () => {
    const { client, clientSecret } = await createClient(api.deps.store, {
      name: 'sid RP',
      redirectUris: [{ type: 'equals', value: REDIRECT }],
      idTokenSignedResponseAlg: 'RS256',
    });
    const email = uniqueEmail('sid');
    await createUser(api.deps.store, { email, password: PASSWORD });
    const sids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const agent = new HttpUser(api.issuer);
      let step = await agent.get(
        `/api/oauth/authorize?response_type=code&client_id=${client._id}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=openid${PKCE}`,
      );
      step = await agent.signIn(step, email, PASSWORD);
      if (step.url.includes('/consent')) step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
      const code = step.external!.searchParams.get('code')!;
      const res = await fetch(`${api.issuer}/api/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER }),
      });
      const { id_token } = (await res.json()) as Json;
      sids.push(JSON.parse(Buffer.from(id_token.split('.')[1], 'base64url').toString()).sid);
    }
    expect(sids[0]).not.toBe(sids[1]);
  });
});

describe('CSRF', () => {
  it('refuses a sign-in form without the CSRF token', async () => {
    const email = uniqueEmail('csrf');
    await createUser(api.deps.store, { email, password: PASSWORD });
    const agent = new HttpUser(api.issuer);
    await agent.get('/login');
    const res = await agent.request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password: PASSWORD }),
    });
    expect(res.status).toBe(400);
    expect((await agent.request('/account')).headers.get('location')).toBe('/login');
  });

  it('refuses sign-out, profile and consent forms with a wrong token', async () => {
    const { agent } = await signedInAgent();
    for (const path of ['/logout', '/account/profile', '/account/security/backup-codes']) {
      const res = await agent.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf: 'forged', name: 'x' }),
      });
      expect(res.status).toBe(400);
    }
    // Still signed in: the forged sign-out did nothing.
    expect((await agent.request('/account')).status).toBe(200);
  });

  it('refuses passkey JSON endpoints without the CSRF header', async () => {
    const { agent } = await signedInAgent();
    const res = await agent.request('/account/security/passkeys/options', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(403);
  });
});

describe('pages', () => {
  it('send a strict CSP without inline script, and refuse framing', async () => {
    const res = await fetch(`${api.issuer}/login`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const page = await res.text();
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(page).not.toMatch(/https?:\/\/(?!127\.0\.0\.1|localhost)/);
    expect(page).toContain('<label for="email">Email</label>');
    expect(page).toContain('<label for="password">Password</label>');
  });

  it('escape what applications and users control', async () => {
    const { client } = await createClient(api.deps.store, {
      name: '<script>alert(1)</script>',
      description: '"><img src=x onerror=alert(2)>',
      redirectUris: [{ type: 'equals', value: REDIRECT }],
    });
    const { agent } = await signedInAgent();
    const consent = await agent.get(
      `/api/oauth/authorize?response_type=code&client_id=${client._id}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=openid${PKCE}`,
    );
    const html = await consent.res.text();
    expect(consent.url).toContain('/consent');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('<img src=x');
  });

  it('say "Incorrect email or password" and pause after 10 failures for an email', async () => {
    const email = uniqueEmail('limit');
    await createUser(api.deps.store, { email, password: PASSWORD });
    const agent = new HttpUser(api.issuer);
    let last: Response | undefined;
    for (let i = 0; i < 11; i++) {
      const login = await agent.get('/login');
      last = (await agent.submit(await login.res.text(), '/login', { email, password: 'wrong password!' })).res;
      if (i === 0) {
        expect(last.status).toBe(401);
        expect(await last.text()).toContain('Incorrect email or password.');
      }
    }
    expect(last!.status).toBe(429);
    // Even the right password waits now.
    const login = await agent.get('/login');
    const right = await agent.submit(await login.res.text(), '/login', { email, password: PASSWORD });
    expect(right.res.status).toBe(429);
  });
});

describe('pages for browsers, JSON for API clients', () => {
  it('answers an unknown browser path with a 404 page, and the same path asked for JSON (or an API path) with JSON', async () => {
    for (const path of ['/account/nope', '/ACCOUNT/nope', '/nope']) {
      const page = await fetch(`${api.url}${path}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect([path, page.status, page.headers.get('content-type')]).toEqual([path, 404, 'text/html; charset=utf-8']);
      expect(await page.text()).toContain('<h1>Page not found</h1>');
    }
    const json = await fetch(`${api.url}/nope`, { headers: { accept: 'application/json' } });
    expect([json.status, await json.json()]).toEqual([404, { error: 'not_found', error_description: 'no resource at GET /nope' }]);
    const apiPath = await fetch(`${api.url}/api/oauth/nope`);
    expect([apiPath.status, await apiPath.json()]).toEqual([404, { error: 'not_found', error_description: 'no resource at GET /api/oauth/nope' }]);
  });

  it('serves a favicon where browsers look for one, and names the SVG one on every page', async () => {
    const icon = await fetch(`${api.url}/favicon.ico`);
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/x-icon']);
    expect([...new Uint8Array(await icon.arrayBuffer()).slice(0, 4)]).toEqual([0, 0, 1, 0]);
    const page = await (await fetch(`${api.url}/login`)).text();
    expect(page).toContain('<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">');
    const svg = await fetch(`${api.url}/assets/favicon.svg`);
    expect([svg.status, svg.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
  });
});
