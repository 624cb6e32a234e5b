// A Regex redirect URI entry that backtracks catastrophically in JavaScript's
// engine, `https://(a+)+\.example\.com/cb`, cannot freeze the api: crafted
// redirect_uris at the authorization endpoint, the PAR endpoint and step-up
// challenges are answered, and so is a concurrent /healthz. The api runs in a
// process of its own: with a backtracking engine its event loop stops, and
// this test then fails by its timeout instead of freezing jest along with it.
import { freePort } from '../../../tools/embedded/ports.js';
import { createClient } from '../../../lib/store/clients.js';
import { openStore, type Store } from '../../../lib/store/db.js';
import { testConfig } from '../../support/harness.js';
import { processGroup, untilReady, type ProcessGroup } from '../../support/keyflow-process.js';

/** Per test: a crafted request answered at all is answered long before this. */
const TIMEOUT = 10_000;
const EVIL_REGEX = 'https://(a+)+\\.example\\.com/cb';
const NOT_REGISTERED = 'redirect_uri is not registered for this client';
/** `https://aaa…a!.example.com/cb`: almost matches, so a backtracking engine tries every way to split the a's. */
const crafted = (n: number) => `https://${'a'.repeat(n)}!.example.com/cb`;
// 24 characters of a's took 270 ms in JavaScript's engine, ×2.6 per 2 more; 1976 is the
// longest the step-up endpoint accepts (2000 characters), 2024 the pre-check's cap (2048).
const LENGTHS = [24, 40, 1976];
const AT_CAP = 2048 - crafted(0).length;

let processes: ProcessGroup | undefined;
let base: string;
let store: Store;
let clientId: string;
let basic: string;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  processes = processGroup({ ...process.env, PORT: String(port), ISSUER: base });
  processes.start('api');
  store = openStore(testConfig());
  const { client, clientSecret } = await createClient(store, {
    name: 'ReDoS RP',
    redirectUris: [{ type: 'regex', value: EVIL_REGEX }],
    allowedScopes: ['openid'],
  });
  clientId = client._id;
  basic = `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}`;
  await untilReady(base);
}, 90_000);

afterAll(async () => {
  await processes?.killAll();
  await store.close();
});

/**
 * Sends the crafted request and, while it is under way, GET /healthz; both
 * must be answered. Logs how long the crafted request took, for the record.
 */
async function answeredAlongsideHealth(label: string, send: () => Promise<Response>): Promise<{ status: number; text: string }> {
  const started = performance.now();
  const pending = send().then(async (res) => ({ status: res.status, text: await res.text(), ms: performance.now() - started }));
  // Awaited together: should the api hang, neither rejects unhandled when it is killed.
  const [answer, health] = await Promise.all([pending, fetch(`${base}/healthz`)]);
  expect(health.status).toBe(200);
  // eslint-disable-next-line no-console -- the durations are reported, never asserted
  console.log(`${label}: answered ${answer.status} in ${answer.ms.toFixed(1)} ms`);
  return answer;
}

function authorize(redirectUri: string): Promise<Response> {
  const url = new URL('/api/oauth/authorize', base);
  url.search = new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'openid' }).toString();
  return fetch(url, { redirect: 'manual' });
}

function push(redirectUri: string): Promise<Response> {
  return fetch(`${base}/api/oauth/par`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ response_type: 'code', redirect_uri: redirectUri, scope: 'openid' }),
  });
}

function challenge(redirectUri: string): Promise<Response> {
  return fetch(`${base}/api/oauth/2fa/challenges`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uri: redirectUri }),
  });
}

describe('a Regex redirect URI entry with nested quantifiers', () => {
  it(
    'is live: a URI it matches is accepted',
    async () => {
      const res = await challenge('https://aaaa.example.com/cb');
      expect(res.status).toBe(201);
    },
    TIMEOUT,
  );

  it.each(LENGTHS)(
    "the authorization endpoint answers a crafted redirect_uri (%i a's) with its error page, and /healthz answers meanwhile",
    async (n) => {
      const { status, text } = await answeredAlongsideHealth(`authorize, ${n} a's`, () => authorize(crafted(n)));
      expect(status).toBe(400);
      expect(text).toContain(`The redirect_uri cannot be used: ${NOT_REGISTERED}.`);
    },
    TIMEOUT,
  );

  it.each(LENGTHS)(
    "the PAR endpoint answers a crafted redirect_uri (%i a's) with 400 invalid_request, and /healthz answers meanwhile",
    async (n) => {
      const { status, text } = await answeredAlongsideHealth(`PAR, ${n} a's`, () => push(crafted(n)));
      expect(status).toBe(400);
      expect(JSON.parse(text)).toEqual({ error: 'invalid_request', error_description: `the redirect_uri cannot be used: ${NOT_REGISTERED}` });
    },
    TIMEOUT,
  );

  it.each(LENGTHS)(
    "step-up challenges answer a crafted redirect_uri (%i a's) with 400 invalid_request, and /healthz answers meanwhile",
    async (n) => {
      const { status, text } = await answeredAlongsideHealth(`2fa challenges, ${n} a's`, () => challenge(crafted(n)));
      expect(status).toBe(400);
      expect(JSON.parse(text)).toEqual({ error: 'invalid_request', error_description: NOT_REGISTERED });
    },
    TIMEOUT,
  );

  it(
    'a crafted redirect_uri at the length cap is matched; one character more is refused before matching',
    async () => {
      expect(crafted(AT_CAP)).toHaveLength(2048);
      const atCap = await answeredAlongsideHealth(`authorize, ${AT_CAP} a's`, () => authorize(crafted(AT_CAP)));
      expect(atCap.status).toBe(400);
      expect(atCap.text).toContain(`The redirect_uri cannot be used: ${NOT_REGISTERED}.`);

      const over = await answeredAlongsideHealth(`authorize, ${AT_CAP + 1} a's`, () => authorize(crafted(AT_CAP + 1)));
      expect(over.status).toBe(400);
      expect(over.text).toContain('The redirect_uri cannot be used: redirect_uri must be at most 2048 characters.');
      const pushed = await answeredAlongsideHealth(`PAR, ${AT_CAP + 1} a's`, () => push(crafted(AT_CAP + 1)));
      expect(pushed.status).toBe(400);
      expect(JSON.parse(pushed.text)).toEqual({
        error: 'invalid_request',
        error_description: 'the redirect_uri cannot be used: redirect_uri must be at most 2048 characters',
      });
    },
    TIMEOUT,
  );
});
