// Webhook deliveries survive a worker killed in the middle of a burst: own
// worker and api processes on a task queue and a database of their own, a
// slow verifying receiver, 40 profile updates over HTTP (each one a
// `profile.updated` event for the user's webhook), the worker SIGKILLed while
// deliveries are in flight and more are waiting, a new worker started. Every
// event must end with exactly one delivery record — a success, or a failure
// marked `interrupted` (its attempt died with the worker) or `timeout` — and
// every WebhookDelivery workflow must complete. No retry: an attempt the dead
// worker had started is not sent again (docs/webhooks.md, Deliveries: one attempt per delivery).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '../../../tools/embedded/ports.js';
import { loadKek } from '../../../lib/security/kek.js';
import { ensureIndexes, type Store } from '../../../lib/store/db.js';
import { createPersonalAccessToken } from '../../../lib/store/personal-access-tokens.js';
import { createUser } from '../../../lib/store/users.js';
import { recentDeliveries } from '../../../lib/store/webhook-history.js';
import { type WebhookDeliveryDoc, webhookDeliveryWorkflowId } from '../../../lib/model/webhook-delivery.js';
import { createWebhook } from '../../../lib/store/webhooks.js';
import { webhookOutbox } from '../../../lib/store/webhook-outbox.js';
import { eventually, testConfig } from '../../support/harness.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { signatureMatches } from '../../support/webhook-receiver.js';
import { killProcess, processGroup, type ProcessGroup, untilReady, workerPolling } from '../../support/keyflow-process.js';
import { openTestStore, testDatabase } from '../../support/database.js';

const TIMEOUT = 240_000;
const EVENTS = 40; // ≤ 50: the history keeps every record of this burst
const database = testDatabase('webhook_resilience');
/** How long the receiver takes to answer: deliveries are in flight when the worker dies. */
const RECEIVER_DELAY_MS = 600;
const taskQueue = `webhook-resilience-${Date.now()}`;

let store: Store;
let base: string;
let connection: Connection;
let temporal: Client;
let processes: ProcessGroup;

/** A receiver that verifies each signature and answers 200 after RECEIVER_DELAY_MS. */
interface SlowReceiver {
  url: string;
  secret: string;
  /** Delivery id → whether its signature verified (a delivery seen twice would show in `duplicates`). */
  received: Map<string, boolean>;
  duplicates: number;
  close(): Promise<void>;
}

async function slowReceiver(): Promise<SlowReceiver> {
  const r: SlowReceiver = { url: '', secret: '', received: new Map(), duplicates: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const id = String(req.headers['x-keyflow-delivery']);
      if (r.received.has(id)) r.duplicates++;
      r.received.set(id, signatureMatches(r.secret, Buffer.concat(chunks), req.headers['x-keyflow-signature'] as string | undefined));
      setTimeout(() => res.writeHead(200).end('ok'), RECEIVER_DELAY_MS);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return r;
}

let receiver: SlowReceiver;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  processes = processGroup({
    ...process.env,
    PORT: String(port),
    ISSUER: base,
    TEMPORAL_TASK_QUEUE: taskQueue,
    ...database.env,
    WEBHOOK_TIMEOUT_MS: '2000',
    OUTBOUND_ALLOWLIST: 'webhooks=127.0.0.1:*',
  });
  store = openTestStore(database);
  await ensureIndexes(store);
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  temporal = new Client({ connection });
  receiver = await slowReceiver();
}, TIMEOUT);

afterAll(async () => {
  await processes.killAll();
  await receiver.close();
  await connection.close();
  await store.close();
});

describe('webhook deliveries survive a killed worker', () => {
  it(
    'ends every event of a burst with one delivery record and a completed workflow',
    async () => {
      const worker = processes.start('worker');
      processes.start('api');
      await untilReady(base);
      await workerPolling(taskQueue);

      const cfg = testConfig();
      const user = await createUser(store, { email: uniqueEmail('wh-resil'), password: 'resilience password' });
      const { token } = await createPersonalAccessToken(store, user._id, { name: 'burst', scope: ['profile:write'], expiresInDays: 1 });
      const { webhook, secret } = await createWebhook(store, loadKek(cfg.kek, cfg.dataDir), {
        scope: 'user',
        ownerUserId: user._id,
        name: 'resilience',
        url: receiver.url,
        events: ['profile.updated'],
      });
      receiver.secret = secret;

      // The burst: one profile change every 50 ms; the worker dies once ten deliveries reached the receiver.
      let killed = false;
      const statuses: number[] = [];
      for (let i = 0; i < EVENTS; i++) {
        const res = await fetch(`${base}/api/oauth/me/profile`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Burst ${i}` }),
        });
        statuses.push(res.status);
        await res.arrayBuffer();
        if (!killed && receiver.received.size >= 10) {
          await killProcess(worker);
          killed = true;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(statuses).toEqual(Array(EVENTS).fill(200));
      if (!killed) await killProcess(worker);
      const atKill = new Set(receiver.received.keys());
      const receivedAtKill = atKill.size;
      expect(receivedAtKill).toBeLessThan(EVENTS); // deliveries were still waiting when the worker died
      processes.start('worker');

      // Every event: one record (none missing), and its workflow completed.
      const query = `WorkflowType = 'webhookDelivery' AND KeyflowUserId = '${user._id}'`;
      let records: WebhookDeliveryDoc[] = [];
      await eventually(
        async () => {
          records = await recentDeliveries(store, webhook._id);
          expect(records).toHaveLength(EVENTS);
        },
        120_000,
        500,
      );
      const workflows: { workflowId: string; status: string }[] = [];
      await eventually(
        async () => {
          workflows.length = 0;
          for await (const wf of temporal.workflow.list({ query })) workflows.push({ workflowId: wf.workflowId, status: wf.status.name });
          expect(workflows).toHaveLength(EVENTS);
          expect(workflows.every((w) => w.status === 'COMPLETED')).toBe(true);
        },
        60_000,
        1_000,
      );
      expect(workflows.map((w) => w.workflowId).sort()).toEqual(records.map((r) => webhookDeliveryWorkflowId(r._id)).sort());

      // Each record is a success or a failure of a delivery that died with the worker (or timed out).
      for (const r of records) {
        if (r.success) expect(r).toMatchObject({ statusCode: 200, error: null });
        else expect(r).toMatchObject({ statusCode: null, error: expect.stringMatching(/^(interrupted|timeout)$/) });
      }
      const successes = records.filter((r) => r.success);
      const interrupted = records.filter((r) => !r.success);
      // Every success reached the receiver with a valid signature; nothing was sent twice.
      for (const r of successes) expect(receiver.received.get(r._id)).toBe(true);
      expect([...receiver.received.values()].every(Boolean)).toBe(true);
      expect(receiver.duplicates).toBe(0);
      // The new worker delivered what was still waiting when the old one died.
      expect(successes.filter((r) => !atKill.has(r._id)).length).toBeGreaterThan(0);
      // The outbox is empty: every event's deliveries were started.
      expect(await webhookOutbox(store).countDocuments({ userId: user._id })).toBe(0);
      process.stdout.write(
        `webhook resilience: ${EVENTS} events, ${receivedAtKill} at the receiver when the worker died; ${successes.length} successes, ${interrupted.length} interrupted\n`,
      );
    },
    TIMEOUT,
  );
});
