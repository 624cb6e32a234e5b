// Endpoints anyone can call that create documents and workflows (device
// authorization, pushed authorization requests, the step-up info endpoint's
// proof-of-work challenges) or answer about accounts (WebFinger) are limited
// per client address and, for device authorization and PAR, per client:
// 429 {error: "slow_down"} with Retry-After, counted before anything is
// created. An api of its own with small limits (5 per address, 3 per client,
// per minute) and a database of its own; each test plays its own addresses
// with X-Forwarded-For (the api trusts it from loopback).
import { s256Challenge } from '../../../lib/model/pkce.js';
import { newSecret } from '../../../lib/security/secrets.js';
import type { NewClientInput } from '../../../lib/model/clients.js';
import { setSiteSetting } from '../../../lib/store/settings.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { awayFromWindowEdge, countStatuses } from '../../support/limits.js';
import { newRp } from '../../../tools/fixtures/clients.js';
import { testDatabase } from '../../support/database.js';

const PER_IP = 5;
const PER_CLIENT = 3;
const REDIRECT = 'https://limited-rp.example/cb';

const api = useTestApi(
  {
    ...testDatabase('unauth_limits').env,
    REQUEST_LIMIT_PER_IP: String(PER_IP),
    REQUEST_LIMIT_PER_CLIENT: String(PER_CLIENT),
  },
  { beforeStop: (running) => running.deps.store.db.dropDatabase() },
);

let nextAddress = 1;
/** A documentation address (TEST-NET-3) no other test uses. */
const freshAddress = () => `203.0.113.${nextAddress++}`;

const RP: NewClientInput = { name: 'Limited RP', allowedScopes: ['openid'], redirectUris: [{ type: 'equals', value: REDIRECT }] };

interface Endpoint {
  path: string;
  /** The success status. */
  ok: number;
  /** The collection each accepted request adds one document to. */
  collection: string;
  params: () => Record<string, string>;
}

const ENDPOINTS: Endpoint[] = [
  { path: '/api/oauth/device_authorization', ok: 200, collection: 'device_codes', params: () => ({ scope: 'openid' }) },
  {
    path: '/api/oauth/par',
    ok: 201,
    collection: 'par_requests',
    params: () => ({
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: s256Challenge(newSecret()),
      code_challenge_method: 'S256',
    }),
  },
];

function post(endpoint: Endpoint, client: { basic: string }, address: string) {
  return fetch(`${api.url}${endpoint.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: client.basic, 'x-forwarded-for': address },
    body: new URLSearchParams(endpoint.params()),
  });
}

/** Statuses of a burst, after checking that every refusal is a 429 slow_down with a Retry-After within the minute. */
async function burst(requests: Promise<Response>[], cors = false): Promise<Record<number, number>> {
  const responses = await Promise.all(requests);
  for (const res of responses) {
    const body = (await res.json()) as Json;
    if (res.status !== 429) continue;
    expect(body).toEqual({ error: 'slow_down', error_description: expect.any(String) });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    if (cors) expect(res.headers.get('access-control-allow-origin')).toBe('*');
  }
  return countStatuses(responses.map((r) => r.status));
}

const documents = (collection: string) => api.deps.store.db.collection(collection).countDocuments({});

describe.each(ENDPOINTS)('POST $path', (endpoint) => {
  it(`10 at once from one address (10 clients): ${PER_IP} accepted, the rest 429 before anything is stored; another address is not affected`, async () => {
    const clients = await Promise.all(Array.from({ length: 10 }, () => newRp(api.deps, RP)));
    const before = await documents(endpoint.collection);
    await awayFromWindowEdge(60_000, 20_000);
    const address = freshAddress();
    const counts = await burst(clients.map((client) => post(endpoint, client, address)));
    expect(counts[endpoint.ok]).toBe(PER_IP);
    expect((counts[endpoint.ok] ?? 0) + (counts[429] ?? 0)).toBe(10);
    expect((await documents(endpoint.collection)) - before).toBe(counts[endpoint.ok] ?? 0);
    expect((await post(endpoint, clients[0]!, freshAddress())).status).toBe(endpoint.ok);
  });

  it(`10 at once for one client (10 addresses): ${PER_CLIENT} accepted, the rest 429; another client is not affected`, async () => {
    const client = await newRp(api.deps, RP);
    const before = await documents(endpoint.collection);
    await awayFromWindowEdge(60_000, 20_000);
    const counts = await burst(Array.from({ length: 10 }, () => post(endpoint, client, freshAddress())));
    expect(counts[endpoint.ok]).toBe(PER_CLIENT);
    expect((counts[endpoint.ok] ?? 0) + (counts[429] ?? 0)).toBe(10);
    expect((await documents(endpoint.collection)) - before).toBe(counts[endpoint.ok] ?? 0);
    expect((await post(endpoint, await newRp(api.deps, RP), freshAddress())).status).toBe(endpoint.ok);
  });
});

describe('GET /api/oauth/2fa/info', () => {
  it(`10 at once from one address: ${PER_IP} answered (each with a fresh proof-of-work challenge), the rest 429`, async () => {
    await setSiteSetting(api.deps.store, 'require_captcha_for_2fa', true);
    await setSiteSetting(api.deps.store, 'captcha_provider', 'pow');
    try {
      const client = await newRp(api.deps, RP);
      const created = await fetch(`${api.url}/api/oauth/2fa/challenges`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: client.basic },
        body: JSON.stringify({ redirect_uri: REDIRECT, action: 'Rotate the keys' }),
      });
      expect(created.status).toBe(201);
      const id = ((await created.json()) as Json).challenge_id as string;
      const powChallenges = () => api.deps.store.db.collection('replay_guards').countDocuments({ _id: { $regex: `^pow-issued:${id}:` } } as never);
      await awayFromWindowEdge(60_000, 20_000);
      const address = freshAddress();
      const counts = await burst(
        Array.from({ length: 10 }, () => fetch(`${api.url}/api/oauth/2fa/info?challenge_id=${id}`, { headers: { 'x-forwarded-for': address } })),
      );
      expect(counts[200]).toBe(PER_IP);
      expect((counts[200] ?? 0) + (counts[429] ?? 0)).toBe(10);
      expect(await powChallenges()).toBe(counts[200] ?? 0);
    } finally {
      await setSiteSetting(api.deps.store, 'require_captcha_for_2fa', false);
      await setSiteSetting(api.deps.store, 'captcha_provider', 'none');
    }
  });
});

describe('GET /.well-known/webfinger', () => {
  const webfinger = (address: string) =>
    fetch(`${api.url}/.well-known/webfinger?resource=${encodeURIComponent(`acct:someone@${new URL(api.url).host}`)}`, {
      headers: { 'x-forwarded-for': address },
    });

  it(`10 at once from one address: ${PER_IP} answered, the rest 429 (readable cross-origin); another address is not affected`, async () => {
    await awayFromWindowEdge(60_000, 20_000);
    const address = freshAddress();
    const counts = await burst(
      Array.from({ length: 10 }, () => webfinger(address)),
      true,
    );
    expect(counts[200]).toBe(PER_IP);
    expect((counts[200] ?? 0) + (counts[429] ?? 0)).toBe(10);
    expect((await webfinger(freshAddress())).status).toBe(200);
  });

  it('counts the addresses of one IPv6 /64 together, and an IPv4-mapped address as its IPv4 address', async () => {
    await awayFromWindowEdge(60_000, 20_000);
    const v6 = await burst(
      Array.from({ length: 10 }, (_, i) => webfinger(`2001:db8:5:6:${i + 1}::1`)),
      true,
    );
    expect(v6[200]).toBe(PER_IP);
    expect((await webfinger('2001:db8:5:7::1')).status).toBe(200);
    const v4 = freshAddress();
    const mixed = await burst(
      Array.from({ length: 10 }, (_, i) => webfinger(i % 2 ? v4 : `::ffff:${v4}`)),
      true,
    );
    expect(mixed[200]).toBe(PER_IP);
  });
});
