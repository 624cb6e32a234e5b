// Events of the operator CLI (admin events, actor `operator`): durable in the
// outbox and the audit log before the command exits, their deliveries started
// when Temporal answers. When it does not, the event waits in the outbox and
// the api's sweep delivers it once Keyflow runs; the command still succeeds.
import type { Config } from '../config/env.js';
import { connectTemporalClient, lazyTemporalClient } from '../temporal/connection.js';
import { SITE_SETTINGS, type SiteSettingKey } from '../domain/site-settings.js';
import type { AdminEvent } from '../domain/webhook-events.js';
import { createLogger } from '../runtime/log.js';
import type { Store } from '../store/db.js';
import { createEventPipeline, type EventActor } from '../webhooks/event-pipeline.js';

export const OPERATOR: EventActor = { type: 'operator' };

/** `admin.config.update`'s data: the key, and its new value unless the setting is secret (then absent). */
export function configUpdateData(key: SiteSettingKey, value: unknown): Record<string, unknown> {
  return { changed: [key], values: SITE_SETTINGS[key].secret ? {} : { [key]: value } };
}

/** How long the CLI waits to reach Temporal before leaving the deliveries to the api's sweep. */
const CONNECT_TIMEOUT_MS = 3_000;

/** Emits one admin event from the CLI and waits until its deliveries are started (or left to the sweep). */
export async function emitAdminEvent(cfg: Config, store: Store, name: AdminEvent, data: Record<string, unknown>): Promise<void> {
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
    await events.admin(name, data, OPERATOR);
    process.stderr.write(`keyflow: note: Temporal is not reachable at ${cfg.temporal.address}; webhooks get this change (${name}) once Keyflow is running\n`);
    return;
  }
  try {
    const events = createEventPipeline({
      store,
      flows: { client: temporal.client, taskQueue },
      log: createLogger('warn'),
      deliveryTimeoutMs: cfg.webhookTimeoutMs,
    });
    await events.admin(name, data, OPERATOR);
    await events.idle();
  } finally {
    await temporal.close();
  }
}
