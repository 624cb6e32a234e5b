// What `npm run stack -- test` checks against the running topology, through
// nginx over TLS as relying parties and people reach it: a code flow and a
// refresh, a device flow, a webhook delivery, an api killed, a worker killed
// in the middle of a device flow, the database stalled, and the per-IP limit
// counting the client's address (as nginx forwards it), not nginx's. Each
// check throws with what it saw; run.ts reports them in order.
import http from 'node:http';
import https from 'node:https';
import { parseConfig } from '../../lib/config/env.js';
import { loadKek } from '../../lib/security/kek.js';
import { openStore, type Store } from '../../lib/store/db.js';
import { createWebhook } from '../../lib/store/webhooks.js';
import { s256Challenge } from '../../lib/model/pkce.js';
import { newSecret } from '../../lib/security/secrets.js';
import { HttpUser } from '../fixtures/http-user.js';
import { newRp, type FixtureRp } from '../fixtures/clients.js';
import { newUser } from '../fixtures/users.js';
import type { Stack } from './stack.js';

const PASSWORD = 'stack check passphrase 7f3a';
const REDIRECT = 'https://stack-rp.example/cb';

export interface Check {
  name: string;
  run: () => Promise<string>;
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function tokenRequest(issuer: string, rp: FixtureRp, form: Record<string, string>) {
  const res = await fetch(`${issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { ...rp.headers, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json().catch(() => ({}))) as Record<string, string> };
}

/** A sign-in form post from `localAddress` (a loopback address of its own), with its own cookie and CSRF token: the status. */
function failedSignInFrom(issuer: string, localAddress: string, email: string): Promise<number> {
  const url = new URL(issuer);
  const request = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; cookies: string[]; text: string }>((resolve, reject) => {
      const req = https.request({ host: url.hostname, port: url.port, method, path, headers, localAddress, servername: 'localhost' }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, cookies: res.headers['set-cookie'] ?? [], text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  return (async () => {
    const page = await request('GET', '/login', {});
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
    assert(csrf, `no sign-in form from ${localAddress} (${page.status})`);
    const cookie = page.cookies.map((c) => c.split(';')[0]).join('; ');
    const body = new URLSearchParams({ email, password: 'not the password', csrf }).toString();
    const answer = await request(
      'POST',
      '/login',
      { cookie, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) },
      body,
    );
    return answer.status;
  })();
}

/** The checks, in the order they run (later ones kill and stall processes). */
export function stackChecks(
  stack: Stack,
  receiver: { url: string; deliveries: () => http.IncomingHttpHeaders[] },
): { checks: Check[]; close: () => Promise<void> } {
  const parsed = parseConfig(stack.env);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const store: Store = openStore(parsed.config);
  const kek = loadKek(parsed.config.kek, parsed.config.dataDir);
  const issuer = stack.issuer;
  let rp: FixtureRp;
  let user: { email: string; id: string };
  let refreshToken = '';

  const codeFlow = async (scope: string) => {
    const verifier = newSecret();
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: rp.id,
      redirect_uri: REDIRECT,
      scope,
      code_challenge: s256Challenge(verifier),
      code_challenge_method: 'S256',
    });
    const agent = new HttpUser(issuer);
    let step = await agent.get(`/api/oauth/authorize?${params}`);
    if (step.url.includes('/login')) step = await agent.signIn(step, user.email, PASSWORD);
    if (step.url.includes('/consent')) step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
    const code = step.external?.searchParams.get('code');
    assert(code, `the flow stopped at ${step.url} (${step.res.status})`);
    return tokenRequest(issuer, rp, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
  };

  const deviceFlow = async (during?: () => Promise<void>) => {
    const start = await fetch(`${issuer}/api/oauth/device_authorization`, {
      method: 'POST',
      headers: { ...rp.headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ scope: 'openid' }),
    });
    const device = (await start.json()) as Record<string, string | number>;
    assert(start.status === 200, `device authorization answered ${start.status}`);
    await during?.();
    const agent = new HttpUser(issuer);
    let step = await agent.get(String(device.verification_uri_complete));
    if (new URL(step.url).pathname === '/device') step = await agent.submit(await step.res.text(), '/device', { user_code: String(device.user_code) });
    if (step.url.includes('/login')) step = await agent.signIn(step, user.email, PASSWORD);
    await agent.submit(await step.res.text(), '/device/consent', { decision: 'allow' });
    const deadline = Date.now() + 60_000;
    for (;;) {
      await sleep(Number(device.interval) * 1000 + 200);
      const answer = await tokenRequest(issuer, rp, { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: String(device.device_code) });
      if (answer.status === 200) return answer;
      assert(answer.body.error === 'authorization_pending' && Date.now() < deadline, `device token: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  };

  const checks: Check[] = [
    {
      name: 'discovery over TLS through nginx names the issuer',
      run: async () => {
        const doc = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { issuer: string };
        assert(doc.issuer === issuer, `issuer ${doc.issuer}`);
        return doc.issuer;
      },
    },
    {
      name: 'code flow (sign-in, consent, PKCE) and a refresh',
      run: async () => {
        const created = await newUser({ store }, { password: PASSWORD, prefix: 'stack' });
        user = { email: created.email, id: created.id };
        rp = await newRp(
          { store },
          {
            name: 'Stack RP',
            redirectUris: [{ type: 'equals', value: REDIRECT }],
            allowedScopes: ['openid', 'offline_access', 'profile:write'],
            idTokenSignedResponseAlg: 'RS256',
          },
        );
        const tokens = await codeFlow('openid offline_access profile:write');
        assert(tokens.status === 200 && tokens.body.refresh_token, `token: ${tokens.status} ${JSON.stringify(tokens.body)}`);
        const refreshed = await tokenRequest(issuer, rp, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token });
        assert(refreshed.status === 200, `refresh: ${refreshed.status} ${JSON.stringify(refreshed.body)}`);
        refreshToken = refreshed.body.refresh_token!;
        return 'tokens issued and rotated';
      },
    },
    {
      name: 'device flow',
      run: async () => {
        const answer = await deviceFlow();
        return `tokens after approval (${answer.body.token_type})`;
      },
    },
    {
      name: 'webhook delivery to a receiver',
      run: async () => {
        await createWebhook(store, kek, { scope: 'user', ownerUserId: user.id, name: 'stack', url: `${receiver.url}/hook`, events: ['profile.updated'] });
        const tokens = await codeFlow('openid profile:write');
        const changed = await fetch(`${issuer}/api/oauth/me/profile`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${tokens.body.access_token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Stack Check' }),
        });
        assert(changed.status === 200, `profile change: ${changed.status}`);
        const deadline = Date.now() + 30_000;
        while (receiver.deliveries().length === 0 && Date.now() < deadline) await sleep(200);
        const delivery = receiver.deliveries()[0];
        assert(delivery, 'no delivery within 30 s');
        assert(
          delivery['x-keyflow-event'] === 'profile.updated' && /^sha256=[0-9a-f]{64}$/.test(String(delivery['x-keyflow-signature'])),
          `delivery headers: ${JSON.stringify(delivery)}`,
        );
        return `profile.updated delivered, signed (${String(delivery['x-keyflow-signature']).slice(0, 15)}…)`;
      },
    },
    {
      name: 'an api killed: nginx sends every request to the other; it comes back by itself',
      run: async () => {
        await stack.apis[0]!.kill('SIGKILL');
        const statuses: number[] = [];
        for (let i = 0; i < 10; i++) {
          const answer = await tokenRequest(issuer, rp, { grant_type: 'refresh_token', refresh_token: refreshToken });
          statuses.push(answer.status);
          if (answer.status === 200) refreshToken = answer.body.refresh_token!;
        }
        assert(
          statuses.every((s) => s === 200),
          `statuses ${statuses.join(' ')}`,
        );
        await stack.apis[0]!.start();
        return '10 rotations with one api down, all 200; restarted';
      },
    },
    {
      name: 'a worker killed in the middle of a device flow: the other finishes it',
      run: async () => {
        await deviceFlow(() => stack.workers[0]!.kill('SIGKILL'));
        await stack.workers[0]!.start();
        return 'device flow completed; worker restarted';
      },
    },
    {
      name: 'the database stalled: 503 with Retry-After in time, never a 500; recovers',
      run: async () => {
        stack.ferretdb.child.kill('SIGSTOP');
        let answer: Awaited<ReturnType<typeof tokenRequest>>;
        const started = Date.now();
        try {
          answer = await tokenRequest(issuer, rp, { grant_type: 'refresh_token', refresh_token: refreshToken });
        } finally {
          stack.ferretdb.child.kill('SIGCONT');
        }
        const took = Date.now() - started;
        assert(answer.status === 503 && answer.retryAfter, `stalled: ${answer.status} after ${took} ms`);
        const deadline = Date.now() + 30_000;
        for (;;) {
          const again = await tokenRequest(issuer, rp, { grant_type: 'refresh_token', refresh_token: refreshToken });
          if (again.status === 200) break;
          assert(again.status === 503 && Date.now() < deadline, `after the stall: ${again.status} ${JSON.stringify(again.body)}`);
          await sleep(500);
        }
        return `503 with Retry-After ${answer.retryAfter} after ${took} ms; 200 again after`;
      },
    },
    {
      name: "per-IP sign-in limit counts the client's address, not nginx's",
      run: async () => {
        const limit = Number(stack.env.SIGNIN_LIMIT_PER_IP);
        const statuses: number[] = [];
        for (let i = 0; i <= limit; i++) statuses.push(await failedSignInFrom(issuer, '127.0.0.2', `nobody-${i}@stack.example`));
        assert(statuses.slice(0, limit).every((s) => s === 401) && statuses[limit] === 429, `from 127.0.0.2: ${statuses.join(' ')}`);
        const other = await failedSignInFrom(issuer, '127.0.0.3', 'nobody-else@stack.example');
        assert(other === 401, `from 127.0.0.3 after 127.0.0.2 was limited: ${other}`);
        return `127.0.0.2: ${statuses.join(' ')}; 127.0.0.3: ${other}`;
      },
    },
  ];
  return { checks, close: () => store.close() };
}
