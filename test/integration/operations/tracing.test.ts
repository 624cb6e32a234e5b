// Traces as an SRE reads them, from a real Jaeger: an api and a worker of this
// file's own export over OTLP/HTTP (the api as protobuf, the worker as JSON).
// An RP's token request is one trace with the refresh family's workflow it
// starts, a revocation one with the activity that ends the family, an API
// call one with the webhook delivery it causes (its context carried through
// Temporal's headers, and on to the receiver), a device authorization one
// with its workflow. Span names are route templates, and no
// span anywhere holds a secret, token, code, password, email or the client's
// address.
import { loadKek } from '../../../lib/security/kek.js';
import { newSecret, hashSecret } from '../../../lib/security/secrets.js';
import { createClient } from '../../../lib/store/clients.js';
import type { Store } from '../../../lib/store/db.js';
import { findDeviceCode } from '../../../lib/store/device-codes.js';
import { createUser } from '../../../lib/store/users.js';
import { freePort } from '../../../tools/embedded/ports.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { openTestStore, testDatabase } from '../../support/database.js';
import { eventually } from '../../support/harness.js';
import { startJaeger, type JaegerSpan, type JaegerTrace, type RunningJaeger } from '../../support/jaeger.js';
import { processGroup, type ProcessGroup, untilReady } from '../../support/keyflow-process.js';
import { codeFlowTokens } from '../../support/token-flow.js';
import { addHook, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

const TIMEOUT = 120_000;
const PASSWORD = 'tracing test password 4b1d';
const REDIRECT = 'https://tracing-rp.example/cb';
const database = testDatabase('tracing');
const taskQueue = `tracing-${Date.now()}`;

let jaeger: RunningJaeger;
let receiver: WebhookReceiver;
let processes: ProcessGroup | undefined;
let store: Store;
let base: string;
/** Every value that must never appear in a span. */
const secrets: string[] = [PASSWORD];

beforeAll(async () => {
  [jaeger, receiver] = await Promise.all([startJaeger(), startWebhookReceiver()]);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  processes = processGroup({
    ...process.env,
    ...database.env,
    PORT: String(port),
    ISSUER: base,
    TEMPORAL_TASK_QUEUE: taskQueue,
    OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
    // Spans leave in batches: every 200 ms here, instead of every 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '200',
    OUTBOUND_ALLOWLIST: `webhooks=${new URL(receiver.url).host}`,
    // A loaded machine (the whole suite on two cores) can take more than the default 5 s over a revocation's
    // update, which waits for the family's activity; this test is about traces, not outages.
    DEPENDENCY_TIMEOUT_MS: '30000',
  });
  store = openTestStore(database);
  processes.start('worker', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
  processes.start('api', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' });
  await untilReady(base);
}, TIMEOUT);

afterAll(async () => {
  // SIGTERM: each process exports its last spans as it stops.
  await processes?.killAll('SIGTERM');
  await Promise.all([jaeger?.stop(), receiver?.close(), store?.close()]);
});

const tag = (span: JaegerSpan, key: string) => span.tags.find((t) => t.key === key)?.value;
const named = (trace: JaegerTrace, name: string) => trace.spans.filter((s) => s.operationName === name);
const parentOf = (span: JaegerSpan) => span.references.find((r) => r.refType === 'CHILD_OF')?.spanID;
/** The names of a span's parent, grandparent… up to the trace's root. */
function ancestors(trace: JaegerTrace, span: JaegerSpan): string[] {
  const parent = trace.spans.find((s) => s.spanID === parentOf(span));
  return parent ? [parent.operationName, ...ancestors(trace, parent)] : [];
}

async function newUserWithClient() {
  const email = uniqueEmail('tracing');
  secrets.push(email);
  const user = await createUser(store, { email, password: PASSWORD, name: 'Tracing' });
  const { client, clientSecret } = await createClient(store, {
    name: 'Tracing RP',
    allowedScopes: ['openid', 'offline_access', 'profile:write'],
    redirectUris: [{ type: 'equals', value: REDIRECT }],
    isVerified: true,
  });
  secrets.push(clientSecret!);
  const headers = { authorization: `Basic ${Buffer.from(`${client._id}:${clientSecret}`).toString('base64')}` };
  return { email, user, client, headers };
}

describe('tracing into a real Jaeger', () => {
  it("follows an RP's token request into the refresh family's workflow, and its revocation into the activity that ends the family", async () => {
    const { email, client, headers } = await newUserWithClient();
    const tokens = await codeFlowTokens(base, { id: client._id, headers }, REDIRECT, 'openid offline_access', email, PASSWORD);
    expect(tokens.status).toBe(200);
    secrets.push(String(tokens.body.access_token), String(tokens.body.refresh_token), String(tokens.body.id_token));
    const revoked = await fetch(`${base}/api/oauth/revoke`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: String(tokens.body.refresh_token), token_type_hint: 'refresh_token' }),
    });
    expect(revoked.status).toBe(200);

    // The token request's trace: the api's span, its MongoDB commands, the family's start, and the worker's run of it (exported when it ends).
    const issued = await jaeger.waitForTrace(
      (t) => named(t, 'POST /api/oauth/token').some((s) => tag(s, 'keyflow.client_id') === client._id) && named(t, 'RunWorkflow:refreshFamily').length > 0,
      30_000,
      'keyflow-api',
    );
    const request = named(issued, 'POST /api/oauth/token')[0]!;
    expect(parentOf(request)).toBeUndefined();
    expect([request.process.serviceName, tag(request, 'span.kind'), tag(request, 'http.route'), tag(request, 'http.response.status_code')]).toEqual([
      'keyflow-api',
      'server',
      '/api/oauth/token',
      200,
    ]);
    expect([tag(request, 'oauth.grant_type'), tag(request, 'keyflow.outcome')]).toEqual(['authorization_code', 'ok']);
    expect(issued.spans.filter((s) => tag(s, 'db.system.name') === 'mongodb' && parentOf(s) === request.spanID).length).toBeGreaterThan(0);
    expect(ancestors(issued, named(issued, 'RunWorkflow:refreshFamily')[0]!)).toEqual(['StartWorkflow:refreshFamily', 'POST /api/oauth/token']);
    expect(named(issued, 'RunWorkflow:refreshFamily')[0]!.process.serviceName).toBe('keyflow-worker');

    // The revocation's trace reaches the activity that ends the family, and that activity's own MongoDB commands.
    const revocation = await jaeger.waitForTrace(
      (t) => named(t, 'POST /api/oauth/revoke').some((s) => tag(s, 'keyflow.client_id') === client._id) && named(t, 'RunActivity:endFamily').length > 0,
      30_000,
      'keyflow-api',
    );
    const activity = named(revocation, 'RunActivity:endFamily')[0]!;
    expect(activity.process.serviceName).toBe('keyflow-worker');
    expect(ancestors(revocation, activity)).toEqual(expect.arrayContaining(['POST /api/oauth/revoke']));
    expect(revocation.spans.some((s) => tag(s, 'db.system.name') === 'mongodb' && parentOf(s) === activity.spanID)).toBe(true);
  });

  it('follows an API request through the webhook delivery it causes, to the receiver, which gets the trace context', async () => {
    const { email, user, client, headers } = await newUserWithClient();
    const { secret: hookSecret } = await addHook({ store, kek: loadKek(Buffer.from(process.env.KEYFLOW_KEK!, 'base64'), '') }, receiver, '/traced', {
      events: ['profile.updated'],
      ownerUserId: user._id,
    });
    secrets.push(hookSecret);
    const tokens = await codeFlowTokens(base, { id: client._id, headers }, REDIRECT, 'openid profile:write', email, PASSWORD);
    expect(tokens.status).toBe(200);
    secrets.push(String(tokens.body.access_token), String(tokens.body.id_token));
    const changed = await fetch(`${base}/api/oauth/me/profile`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${String(tokens.body.access_token)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Traced Name' }),
    });
    expect(changed.status).toBe(200);

    await eventually(() => expect(receiver.at('/traced').length).toBeGreaterThan(0), 30_000, 200);
    const traceparent = String(receiver.at('/traced')[0]!.headers.traceparent);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, traceId, parentSpanId] = traceparent.split('-');
    // The two processes export their spans in their own batches: wait for both halves of the trace.
    const trace = await jaeger.waitForTrace(
      (t) =>
        t.traceID === traceId && ['POST webhooks', 'RunWorkflow:webhookDelivery', 'PATCH /api/oauth/me/profile'].every((name) => named(t, name).length > 0),
      30_000,
      'keyflow-api',
    );
    const post = named(trace, 'POST webhooks')[0]!;
    expect(post.spanID).toBe(parentSpanId);
    expect([post.process.serviceName, tag(post, 'keyflow.outbound.feature'), tag(post, 'http.response.status_code'), tag(post, 'server.address')]).toEqual([
      'keyflow-worker',
      'webhooks',
      200,
      '127.0.0.1',
    ]);
    expect(ancestors(trace, post)).toEqual(
      expect.arrayContaining(['RunActivity:deliverWebhook', 'RunWorkflow:webhookDelivery', 'StartWorkflow:webhookDelivery', 'PATCH /api/oauth/me/profile']),
    );
    expect(named(trace, 'PATCH /api/oauth/me/profile')[0]!.process.serviceName).toBe('keyflow-api');
  });

  it('joins a device authorization request to the workflow it starts, which the worker runs', async () => {
    const { email, client, headers } = await newUserWithClient();
    const res = await fetch(`${base}/api/oauth/device_authorization`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ scope: 'openid' }),
    });
    expect(res.status).toBe(200);
    const { device_code: deviceCode, user_code: userCode } = (await res.json()) as { device_code: string; user_code: string };
    secrets.push(deviceCode, userCode);
    // The user denies at /device: the workflow ends, and the worker exports its span.
    const agent = new HttpUser(base);
    const entry = await agent.get('/device');
    let step = await agent.submit(await entry.res.text(), '/device', { user_code: userCode });
    if (step.url.includes('/login')) step = await agent.signIn(step, email, PASSWORD);
    const done = await agent.submit(await step.res.text(), '/device/consent', { decision: 'deny' });
    expect(done.res.status).toBe(200);
    await eventually(async () => expect((await findDeviceCode(store, hashSecret(deviceCode)))?.status).toBe('denied'));

    const trace = await jaeger.waitForTrace(
      (t) =>
        named(t, 'POST /api/oauth/device_authorization').some((s) => tag(s, 'keyflow.client_id') === client._id) &&
        named(t, 'RunWorkflow:deviceAuthorization').length > 0,
      30_000,
      'keyflow-api',
    );
    expect(named(trace, 'StartWorkflow:deviceAuthorization')[0]!.process.serviceName).toBe('keyflow-api');
    expect(named(trace, 'RunWorkflow:deviceAuthorization')[0]!.process.serviceName).toBe('keyflow-worker');
  });

  it('names spans by route template and puts no secret, token, code, password, email or client address in any span', async () => {
    // A request whose path and query carry would-be secrets: the span names the route, not the path.
    const probe = `probe-${newSecret()}`;
    secrets.push(probe);
    expect((await fetch(`${base}/api/oauth/authorize?client_id=${probe}&code=${probe}`)).status).toBeGreaterThanOrEqual(400);
    expect((await fetch(`${base}/no/such/${probe}`)).status).toBe(404);
    await eventually(async () => expect((await jaeger.traces('keyflow-api', 500)).some((t) => named(t, 'GET unmatched').length > 0)).toBe(true), 20_000, 200);

    const traces = [...(await jaeger.traces('keyflow-api', 1000)), ...(await jaeger.traces('keyflow-worker', 1000))];
    const spans = traces.flatMap((t) => t.spans);
    expect(spans.length).toBeGreaterThan(20);
    expect(new Set(spans.map((s) => s.process.serviceName))).toEqual(new Set(['keyflow-api', 'keyflow-worker']));
    const text = JSON.stringify(spans.map((s) => [s.operationName, s.tags, s.logs]));
    for (const secret of secrets) expect(text).not.toContain(secret);
    for (const span of spans) {
      expect(span.operationName).not.toMatch(/[?]|probe-/);
      expect(span.tags.map((t) => t.key)).not.toEqual(expect.arrayContaining(['client.address']));
      expect(span.tags.map((t) => t.key)).not.toEqual(expect.arrayContaining(['user_agent.original']));
      expect(span.tags.map((t) => t.key)).not.toEqual(expect.arrayContaining(['url.full']));
    }
  });
});
