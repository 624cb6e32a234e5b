// Custom domains end to end: the API at /api/oauth/me/domains with scoped
// tokens, the DomainVerification flow on a real worker checking TXT records
// on a real DNS server (on loopback, DNS_RESOLVERS), events delivered to
// a receiver that verifies their signatures, and a worker killed while a
// flow waits. Timings are short: checks every 1–2 s, a deadline of 8 s.
import type { RunningApi } from '../../../api/server.js';
import { startApi } from '../../../api/server.js';
import { createLogger } from '../../../lib/runtime/log.js';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createDomainVerificationActivities } from '../../../activities/domain-verification.js';
import { addDomain, markDomainVerified } from '../../../lib/store/custom-domains.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { freePort } from '../../../tools/embedded/ports.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { startDnsServer, type TestDnsServer } from '../../support/dns-server.js';
import { eventually, sleep, STACK_FRAME, testConfig } from '../../support/harness.js';
import { expectDeliveriesStartedFor } from '../../support/deliveries.js';
import { requestJson } from '../../support/http.js';
import { killProcess, processGroup, workerPolling } from '../../support/keyflow-process.js';
import { isolatedEnv, startTestWorker, taskQueueOf, type TestWorker } from '../../support/test-worker.js';
import { addHook, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';
import { testDatabase } from '../../support/database.js';

const database = testDatabase('domains');
let dns: TestDnsServer;
let receiver: WebhookReceiver;
let worker: TestWorker;
/** Checks every 1–2 s until 8 s after adding. */
let api: RunningApi;
/** The same database and worker; its flows wait 10 minutes between checks (for "verify now"). */
let slow: RunningApi;

async function apiOn(env: Record<string, string>): Promise<RunningApi> {
  const port = await freePort();
  const config = testConfig(isolatedEnv({ PORT: String(port), ISSUER: `http://127.0.0.1:${port}`, ...database.env, DNS_RESOLVERS: dns.address, ...env }));
  return startApi(config, createLogger('error'));
}

const workerConfig = () => testConfig(isolatedEnv({ ...database.env, DNS_RESOLVERS: dns.address }));

beforeAll(async () => {
  dns = await startDnsServer();
  receiver = await startWebhookReceiver();
  worker = await startTestWorker(workerConfig());
  api = await apiOn({
    DOMAIN_VERIFICATION_FIRST_INTERVAL_SECONDS: '1',
    DOMAIN_VERIFICATION_MAX_INTERVAL_SECONDS: '2',
    DOMAIN_VERIFICATION_DEADLINE_SECONDS: '8',
  });
  slow = await apiOn({ DOMAIN_VERIFICATION_FIRST_INTERVAL_SECONDS: '600' });
}, 120_000);
afterAll(async () => {
  await Promise.allSettled([api?.stop(), slow?.stop()]);
  await worker?.stop();
  await Promise.allSettled([receiver?.close(), dns?.close()]);
});

let n = 0;
/** A user with a read-write, a read-only and a write-only token, and a webhook for the domain events. */
async function domainUser() {
  const { user } = await newUser(api.deps, { prefix: 'domains', password: 'domains test password' });
  const token = async (scope: string[]) => (await createPersonalAccessToken(api.deps.store, user._id, { name: 't', scope, expiresInDays: 1 })).token;
  const path = `/domains-${++n}`;
  await addHook(api.deps, receiver, path, { ownerUserId: user._id, name: 'domain events', events: ['domain.added', 'domain.verified', 'domain.deleted'] });
  return { user, path, rw: await token(['domains:read', 'domains:write']), ro: await token(['domains:read']), wo: await token(['domains:write']) };
}

const call = (on: RunningApi, token: string, method: string, path = '', body?: unknown, contentType?: string) =>
  requestJson(`${on.url}/api/oauth/me/domains${path}`, method, { token, body, contentType });

let d = 0;
const uniqueDomain = () => `d${Date.now().toString(36)}${++d}.example.com`;
const flowResult = (on: RunningApi, id: string) => on.deps.temporal.client.workflow.getHandle(`domain:${id}`).result() as Promise<string>;

/**
 * The events a user's webhook received, once there are `count`, each with a
 * valid signature; sorted by name, since each delivery is a flow of its own
 * and they may arrive in any order.
 */
async function events(path: string, count: number) {
  await eventually(() => expect(receiver.at(path).length).toBeGreaterThanOrEqual(count), 30_000);
  for (const got of receiver.at(path)) expect(got.verified).toBe(true);
  return receiver
    .at(path)
    .map((got) => [got.body.event, got.body.data] as const)
    .sort(([a], [b]) => a.localeCompare(b));
}

describe('adding and verifying', () => {
  it('adds a domain with its TXT record; publishing the record verifies it through the flow; the events reach the webhook', async () => {
    const u = await domainUser();
    const name = uniqueDomain();
    const added = await call(api, u.rw, 'POST', '', { domain: name.toUpperCase() });
    expect(added.res.status).toBe(201);
    expect(added.body).toEqual({
      id: expect.any(String),
      domain: name,
      verified: false,
      verified_at: null,
      txt_record: { name: `_keyflow-challenge.${name}`, value: expect.stringMatching(/^keyflow-verification=[A-Za-z0-9_-]{43}$/) },
      created_at: expect.any(String),
    });
    dns.txt.set(`_keyflow-challenge.${name}`, ['v=spf1 -all', added.body.txt_record.value]);
    expect(await flowResult(api, added.body.id)).toBe('verified');
    const got = await call(api, u.ro, 'GET', `/${added.body.id}`);
    expect(got.body).toMatchObject({ verified: true, verified_at: expect.any(String) });
    expect((await call(api, u.ro, 'GET')).body.domains).toEqual([got.body]);
    const data = { domain_id: added.body.id, domain: name };
    expect(await events(u.path, 2)).toEqual([
      ['domain.added', data],
      ['domain.verified', data],
    ]);
  }, 60_000);

  it('with a wrong record the domain stays unverified, and at the deadline the flow expires', async () => {
    const u = await domainUser();
    const name = uniqueDomain();
    const added = await call(api, u.rw, 'POST', '', { domain: name });
    dns.txt.set(`_keyflow-challenge.${name}`, ['keyflow-verification=not-the-token']);
    expect(await flowResult(api, added.body.id)).toBe('expired');
    expect(dns.queries.filter((q) => q === `_keyflow-challenge.${name}`).length).toBeGreaterThanOrEqual(3);
    expect((await call(api, u.ro, 'GET', `/${added.body.id}`)).body).toMatchObject({ verified: false, verified_at: null });
    // After the deadline, "verify now" starts a new check, which finds the right record.
    dns.txt.set(`_keyflow-challenge.${name}`, [added.body.txt_record.value]);
    const verify = await call(api, u.wo, 'POST', `/${added.body.id}/verify`);
    expect(verify.res.status).toBe(202);
    expect(verify.body).toMatchObject({ id: added.body.id, state: 'pending' });
    await eventually(async () => expect((await call(api, u.ro, 'GET', `/${added.body.id}`)).body.verified).toBe(true), 15_000);
  }, 60_000);

  it('"verify now" checks at once instead of waiting for the next check', async () => {
    const u = await domainUser();
    const name = uniqueDomain();
    const added = await call(slow, u.rw, 'POST', '', { domain: name });
    // The first check (at once) found nothing; the next would be in 10 minutes.
    await eventually(() => expect(dns.queries).toContain(`_keyflow-challenge.${name}`));
    dns.txt.set(`_keyflow-challenge.${name}`, [added.body.txt_record.value]);
    const verify = await call(slow, u.wo, 'POST', `/${added.body.id}/verify`);
    expect(verify.res.status).toBe(202);
    await eventually(async () => expect((await call(slow, u.ro, 'GET', `/${added.body.id}`)).body.verified).toBe(true), 10_000);
    expect((await call(slow, u.wo, 'POST', `/${added.body.id}/verify`)).body).toMatchObject({ verified: true, state: 'verified' });
  }, 60_000);

  it('two users may add the same name: each has their own token and verifies for themselves only', async () => {
    const [a, b] = [await domainUser(), await domainUser()];
    const name = uniqueDomain();
    const ofA = (await call(slow, a.rw, 'POST', '', { domain: name })).body;
    const ofB = (await call(slow, b.rw, 'POST', '', { domain: name })).body;
    expect(ofB.txt_record.value).not.toBe(ofA.txt_record.value);
    dns.txt.set(`_keyflow-challenge.${name}`, [ofA.txt_record.value]);
    await call(slow, a.wo, 'POST', `/${ofA.id}/verify`);
    await call(slow, b.wo, 'POST', `/${ofB.id}/verify`);
    await eventually(async () => expect((await call(slow, a.ro, 'GET', `/${ofA.id}`)).body.verified).toBe(true), 10_000);
    expect((await call(slow, b.ro, 'GET', `/${ofB.id}`)).body.verified).toBe(false);
    expect((await call(slow, a.rw, 'POST', '', { domain: name })).res.status).toBe(409);
  }, 60_000);

  it('deleting a domain cancels its flow and emits domain.deleted', async () => {
    const u = await domainUser();
    const added = await call(slow, u.rw, 'POST', '', { domain: uniqueDomain() });
    const del = await call(slow, u.wo, 'DELETE', `/${added.body.id}`);
    expect(del.res.status).toBe(204);
    expect(await flowResult(slow, added.body.id)).toBe('cancelled');
    expect((await call(slow, u.ro, 'GET', `/${added.body.id}`)).res.status).toBe(404);
    expect((await events(u.path, 2)).map(([e]) => e)).toEqual(['domain.added', 'domain.deleted']);
  }, 60_000);
});

describe('durability', () => {
  it('a flow waiting while its worker is killed (SIGKILL) is carried on by a new worker', async () => {
    // This test's worker is a process of its own, so it can die as a crash would.
    await worker.stop();
    const processes = processGroup({ ...process.env, ...isolatedEnv({ ...database.env, DNS_RESOLVERS: dns.address }) });
    // A deadline far enough for a new worker to start on a loaded machine (the flow would expire, rightly, at 8 s).
    const api = await apiOn({
      DOMAIN_VERIFICATION_FIRST_INTERVAL_SECONDS: '1',
      DOMAIN_VERIFICATION_MAX_INTERVAL_SECONDS: '2',
      DOMAIN_VERIFICATION_DEADLINE_SECONDS: '120',
    });
    try {
      const killed = processes.start('worker');
      await workerPolling(taskQueueOf(database.name));
      const u = await domainUser();
      const name = uniqueDomain();
      const added = await call(api, u.rw, 'POST', '', { domain: name });
      // The worker process may still be starting (the stopped worker's poller lingers a few seconds).
      await eventually(() => expect(dns.queries).toContain(`_keyflow-challenge.${name}`), 60_000);
      // A delivery has one attempt, and one the kill interrupts is recorded as failed: the kill waits
      // for domain.added to arrive, so what this test watches is the verification flow alone.
      expect(await events(u.path, 1)).toEqual([['domain.added', expect.anything()]]);
      await killProcess(killed);
      dns.txt.set(`_keyflow-challenge.${name}`, [added.body.txt_record.value]);
      await sleep(3_000);
      expect((await call(api, u.ro, 'GET', `/${added.body.id}`)).body.verified).toBe(false);
      processes.start('worker');
      expect(await flowResult(api, added.body.id)).toBe('verified');
      expect((await call(api, u.ro, 'GET', `/${added.body.id}`)).body.verified).toBe(true);
      expect(await events(u.path, 2)).toEqual([
        ['domain.added', expect.anything()],
        ['domain.verified', { domain_id: added.body.id, domain: name }],
      ]);
    } finally {
      await api.stop();
      await processes.killAll();
      worker = await startTestWorker(workerConfig());
    }
  }, 120_000);

  it('a verification retried after a crash between the mark and the event still emits domain.verified, once', async () => {
    const u = await domainUser();
    // The situation a first attempt leaves when it dies after its write: the domain is marked, no event out.
    const domain = await addDomain(slow.deps.store, u.user._id, uniqueDomain());
    await markDomainVerified(slow.deps.store, domain._id, new Date());
    const activities = createDomainVerificationActivities({
      store: slow.deps.store,
      dnsResolvers: [dns.address],
      webhookTimeoutMs: 5_000,
      audit: slow.deps.audit,
    });
    const env = new MockActivityEnvironment({ taskQueue: taskQueueOf(database.name) }, { client: slow.deps.temporal.client });
    const record = () => env.run((input: { domainId: string }) => activities.recordDomainVerified(input), { domainId: domain._id });
    expect(await record()).toBe(true);
    expect(await record()).toBe(true); // a second retry: nothing delivered twice
    const data = { domain_id: domain._id, domain: domain.domain };
    await eventually(() => expect(receiver.at(u.path).filter((got) => got.body.event === 'domain.verified')).toHaveLength(1), 30_000);
    // One delivery was ever started to the user's webhook: the retry's event had the same id, and its dispatch was refused.
    await expectDeliveriesStartedFor(slow.deps.temporal.client, u.user._id, 1);
    expect(
      receiver
        .at(u.path)
        .filter((got) => got.body.event === 'domain.verified')
        .map((got) => got.body.data),
    ).toEqual([data]);
  }, 60_000);
});

describe('refusals', () => {
  it('a missing scope is 403 insufficient_scope', async () => {
    const u = await domainUser();
    const add = await call(api, u.ro, 'POST', '', { domain: uniqueDomain() });
    expect(add.res.status).toBe(403);
    expect(add.res.headers.get('www-authenticate')).toContain('insufficient_scope');
    expect((await call(api, u.wo, 'GET')).res.status).toBe(403);
  });

  it("another user's domain is 404 for every verb", async () => {
    const [a, b] = [await domainUser(), await domainUser()];
    const ofA = (await call(slow, a.rw, 'POST', '', { domain: uniqueDomain() })).body;
    for (const [method, path] of [
      ['GET', `/${ofA.id}`],
      ['POST', `/${ofA.id}/verify`],
      ['DELETE', `/${ofA.id}`],
      ['GET', '/not-an-id'],
    ] as const) {
      const r = await call(slow, b.rw, method, path);
      expect([method, path, r.res.status, r.body.error]).toEqual([method, path, 404, 'not_found']);
    }
    expect((await call(slow, a.ro, 'GET', `/${ofA.id}`)).res.status).toBe(200);
  });

  it('normalises names (IDNA, case) and refuses bad input with a JSON 400 naming the field, never a 500', async () => {
    const u = await domainUser();
    const idn = `bücher-${Date.now().toString(36)}.example`;
    const ok = await call(slow, u.rw, 'POST', '', { domain: idn });
    expect(ok.res.status).toBe(201);
    expect(ok.body.domain).toMatch(/^xn--bcher-.*-[a-z0-9]+\.example$/);
    for (const body of [
      { domain: '192.0.2.1' },
      { domain: '[::1]' },
      { domain: 'example.com.' },
      { domain: 'localhost' },
      { domain: 'a..example' },
      { domain: '-a.example' },
      { domain: `${'a'.repeat(64)}.example` },
      { domain: `${'abcdefghi.'.repeat(26)}com` },
      { domain: 'exa mple.com' },
      { domain: 42 },
      {},
      [],
    ]) {
      const r = await call(slow, u.rw, 'POST', '', body);
      expect([JSON.stringify(body), r.res.status, r.body.error]).toEqual([JSON.stringify(body), 400, 'invalid_request']);
      if (!Array.isArray(body)) expect(r.body.error_description).toMatch(/^domain: /);
      expect(r.text).not.toMatch(STACK_FRAME);
    }
    for (const [raw, type] of [
      ['{"domain":', 'application/json'],
      ['domain=example.com', 'application/x-www-form-urlencoded'],
    ]) {
      const r = await call(slow, u.rw, 'POST', '', raw, type);
      expect([raw, r.res.status]).toEqual([raw, 400]);
      expect(r.body.error).toBe('invalid_request');
    }
  });
});
