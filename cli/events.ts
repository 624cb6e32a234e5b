// Events of the operator CLI (actor `operator`): durable in the outbox (and the
// audit log, for admin events) before the command exits, their deliveries
// started when Temporal answers. When it does not, the event waits in the
// outbox and the api's sweep delivers it once Keyflow runs; the command still
// succeeds. The pipeline and Temporal's SDK are loaded at the first event: a
// command that emits none does not pay for them.
import type { Config } from '../lib/config/env.js';
import type { AdminEvent, EventActor, UserEvent } from '../lib/model/webhook-events.js';
import { createAuditTrail, type AuditTrail } from '../lib/audit/audit-trail.js';
import { createLogger } from '../lib/runtime/log.js';
import type { Store } from '../lib/store/db.js';
import type { EventPipeline } from '../lib/webhooks/event-pipeline.js';
import { cliIo } from './io.js';

export const OPERATOR: EventActor = { type: 'operator' };

/** How long the CLI waits to reach Temporal before leaving the deliveries to the api's sweep. */
const CONNECT_TIMEOUT_MS = 3_000;

/** The CLI's audit recorder (actor `operator` in what it records): each record is written before the command goes on. */
export function cliAudit(store: Store): AuditTrail {
  return createAuditTrail({ store, log: createLogger('warn', (line) => cliIo().stderr(line + '\n')) });
}

/** The CLI's pipeline for one command, and whether Temporal answered (else deliveries are left to the api's sweep). */
interface CliPipeline {
  events: EventPipeline;
  reachable: boolean;
  /** Waits until the deliveries begun are started, then closes the connection. */
  close(): Promise<void>;
}

/** A pipeline whose dispatch never runs here: its lazy connection is not used before the process exits. */
async function undeliveredPipeline(cfg: Config, store: Store): Promise<EventPipeline> {
  const [{ lazyTemporalClient }, { createEventPipeline }, { createLogger }] = await Promise.all([
    import('../lib/temporal/connection.js'),
    import('../lib/webhooks/event-pipeline.js'),
    import('../lib/runtime/log.js'),
  ]);
  return createEventPipeline({
    store,
    audit: cliAudit(store),
    flows: { client: lazyTemporalClient(cfg).client, taskQueue: cfg.temporal.taskQueue },
    log: createLogger('error', () => {}),
    deliveryTimeoutMs: cfg.webhookTimeoutMs,
  });
}

async function openPipeline(cfg: Config, store: Store): Promise<CliPipeline> {
  const [{ connectTemporalClient }, { createEventPipeline }, { createLogger }] = await Promise.all([
    import('../lib/temporal/connection.js'),
    import('../lib/webhooks/event-pipeline.js'),
    import('../lib/runtime/log.js'),
  ]);
  const temporal = await connectTemporalClient(cfg, CONNECT_TIMEOUT_MS).catch(() => null);
  if (!temporal) return { events: await undeliveredPipeline(cfg, store), reachable: false, close: async () => {} };
  const events = createEventPipeline({
    store,
    audit: cliAudit(store),
    flows: { client: temporal.client, taskQueue: cfg.temporal.taskQueue },
    log: createLogger('warn', (line) => cliIo().stderr(line + '\n')),
    deliveryTimeoutMs: cfg.webhookTimeoutMs,
  });
  return { events, reachable: true, close: () => events.idle().finally(() => temporal.close()) };
}

const unreachableNote = (cfg: Config, name: AdminEvent | UserEvent) =>
  cliIo().stderr(`keyflow: note: Temporal is not reachable at ${cfg.temporal.address}; webhooks get this change (${name}) once Keyflow is running\n`);

/**
 * Events for a command that may emit several (team changes): Temporal is
 * reached at the first admin or user event, once for the command. `finish()`
 * waits for the deliveries begun.
 */
export function cliEvents(cfg: Config, store: Store) {
  let opened: Promise<CliPipeline> | null = null;
  const open = () => (opened ??= openPipeline(cfg, store));
  return {
    async admin(name: AdminEvent, data: Record<string, unknown>, actor: EventActor): Promise<void> {
      const pipeline = await open();
      await pipeline.events.admin(name, data, actor);
      if (!pipeline.reachable) unreachableNote(cfg, name);
    },
    /** An event for the webhooks of `userId` (an app's owner), e.g. when the operator deletes their app. */
    async user(name: UserEvent, userId: string, data: Record<string, unknown>, actor: EventActor): Promise<void> {
      const pipeline = await open();
      await pipeline.events.user(name, userId, data, actor);
      if (!pipeline.reachable) unreachableNote(cfg, name);
    },
    finish: async () => (opened ? (await opened).close() : undefined),
  };
}
