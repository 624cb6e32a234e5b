// Events of the operator CLI (admin events, actor `operator`): durable in the
// outbox and the audit log before the command exits, their deliveries started
// when Temporal answers. When it does not, the event waits in the outbox and
// the api's sweep delivers it once Keyflow runs; the command still succeeds.
import type { Config } from '../config/env.js';
import { connectTemporalClient, lazyTemporalClient } from '../temporal/connection.js';
import type { AdminEvent, AuditEvent } from '../domain/webhook-events.js';
import { createLogger } from '../runtime/log.js';
import type { Store } from '../store/db.js';
import { createEventPipeline, type EventActor, type EventPipeline } from '../webhooks/event-pipeline.js';

export const OPERATOR: EventActor = { type: 'operator' };

/** How long the CLI waits to reach Temporal before leaving the deliveries to the api's sweep. */
const CONNECT_TIMEOUT_MS = 3_000;

/** The CLI's pipeline for one command, and whether Temporal answered (else deliveries are left to the api's sweep). */
interface CliPipeline {
  events: EventPipeline;
  reachable: boolean;
  /** Waits until the deliveries begun are started, then closes the connection. */
  close(): Promise<void>;
}

async function openPipeline(cfg: Config, store: Store): Promise<CliPipeline> {
  const { taskQueue } = cfg.temporal;
  const temporal = await connectTemporalClient(cfg, CONNECT_TIMEOUT_MS).catch(() => null);
  if (!temporal) {
    // A pipeline whose dispatch never runs here: the lazy connection is not used before the process exits.
    const lazy = lazyTemporalClient(cfg);
    const events = createEventPipeline({
      store,
      flows: { client: lazy.client, taskQueue },
      log: createLogger('error', () => {}),
      deliveryTimeoutMs: cfg.webhookTimeoutMs,
    });
    return { events, reachable: false, close: async () => {} };
  }
  const events = createEventPipeline({
    store,
    flows: { client: temporal.client, taskQueue },
    log: createLogger('warn'),
    deliveryTimeoutMs: cfg.webhookTimeoutMs,
  });
  return { events, reachable: true, close: () => events.idle().finally(() => temporal.close()) };
}

const unreachableNote = (cfg: Config, name: AdminEvent) =>
  process.stderr.write(`keyflow: note: Temporal is not reachable at ${cfg.temporal.address}; webhooks get this change (${name}) once Keyflow is running\n`);

/** Emits one admin event from the CLI and waits until its deliveries are started (or left to the sweep). */
export async function emitAdminEvent(cfg: Config, store: Store, name: AdminEvent, data: Record<string, unknown>): Promise<void> {
  const pipeline = await openPipeline(cfg, store);
  try {
    await pipeline.events.admin(name, data, OPERATOR);
    if (!pipeline.reachable) unreachableNote(cfg, name);
  } finally {
    await pipeline.close();
  }
}

/**
 * Events for a command that may emit several (team changes): audit-only events
 * go straight to the audit log; Temporal is reached at the first admin event,
 * once for the command. `finish()` waits for the deliveries begun.
 */
export function cliEvents(cfg: Config, store: Store) {
  let opened: Promise<CliPipeline> | null = null;
  const open = () => (opened ??= openPipeline(cfg, store));
  const auditOnly = createEventPipeline({
    store,
    flows: { client: lazyTemporalClient(cfg).client, taskQueue: cfg.temporal.taskQueue },
    log: createLogger('error', () => {}),
    deliveryTimeoutMs: cfg.webhookTimeoutMs,
  });
  return {
    audit: (name: AuditEvent, data: Record<string, unknown>, actor: EventActor) => auditOnly.audit(name, data, actor),
    async admin(name: AdminEvent, data: Record<string, unknown>, actor: EventActor): Promise<void> {
      const pipeline = await open();
      await pipeline.events.admin(name, data, actor);
      if (!pipeline.reachable) unreachableNote(cfg, name);
    },
    finish: async () => (opened ? (await opened).close() : undefined),
  };
}
