// `keyflow webhooks tail ID [--limit N] [--follow]`: a webhook's recent
// deliveries from its history in MongoDB (the newest HISTORY_LIMIT are kept),
// one line each. Without --follow: newest first, then exit. With --follow:
// the same records oldest first (like `tail -f`), then every new record as it
// is written (polled once a second) until Ctrl-C.
import { NotFoundError } from '../lib/model/errors.js';
import type { Store } from '../lib/store/db.js';
import { HISTORY_LIMIT, recentDeliveries } from '../lib/store/webhook-history.js';
import type { WebhookDeliveryDoc } from '../lib/model/webhook-delivery.js';
import { findWebhook } from '../lib/store/webhooks.js';
import { UsageError, parseOrUsage } from './usage.js';
import { optionsOf } from './commands.js';
import { cliIo } from './io.js';

/** How often `--follow` looks for new records. */
export const FOLLOW_INTERVAL_MS = 1_000;

/** One delivery as a line: time, event, outcome, status or error kind, duration, delivery id. */
export function deliveryLine(d: WebhookDeliveryDoc): string {
  const outcome = d.success ? 'success' : 'failure';
  const detail = d.statusCode !== null ? String(d.statusCode) : (d.error ?? '-');
  const duration = d.durationMs !== null ? `${d.durationMs} ms` : '- ms';
  return [d.deliveredAt.toISOString(), d.event.padEnd(19), outcome.padEnd(7), detail.padEnd(11), duration.padStart(8), d._id].join('  ');
}

export async function webhooksCommand(store: Store, sub: string | undefined, argv: string[]): Promise<void> {
  if (sub !== 'tail') throw new UsageError(`unknown command: webhooks ${sub ?? ''}`.trim());
  const parsed = parseOrUsage({ args: argv, options: optionsOf('webhooks tail'), allowPositionals: true, strict: true });
  const [id, extra] = parsed.positionals;
  if (id === undefined) throw new UsageError('webhooks tail needs a webhook ID');
  if (extra !== undefined) throw new UsageError(`unexpected argument: ${extra}`);
  let limit = HISTORY_LIMIT;
  const asked = parsed.values.limit as string | undefined;
  if (asked !== undefined) {
    limit = Number(asked);
    if (!/^\d+$/.test(asked) || limit < 1 || limit > HISTORY_LIMIT) throw new UsageError(`--limit must be an integer from 1 to ${HISTORY_LIMIT}`);
  }
  if (!(await findWebhook(store, id))) throw new NotFoundError(`no webhook with id ${id}`);

  // --follow remembers the whole kept history as seen, not only the records it
  // printed: an older record must never come back as new at the first poll.
  const kept = await recentDeliveries(store, id, parsed.values.follow ? HISTORY_LIMIT : limit);
  const first = kept.slice(0, limit);
  const write = (records: WebhookDeliveryDoc[]) => {
    if (records.length) cliIo().stdout(records.map(deliveryLine).join('\n') + '\n');
  };
  if (!parsed.values.follow) {
    if (first.length === 0) cliIo().stderr(`keyflow: no deliveries recorded for webhook ${id}\n`);
    return write(first);
  }
  write([...first].reverse());
  await follow(store, id, new Set(kept.map((d) => d._id)));
}

/** Polls the history and prints records not seen before, oldest first, until SIGINT or SIGTERM. */
async function follow(store: Store, id: string, seen: Set<string>): Promise<void> {
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let running = true;
  void stopped.then(() => (running = false));
  try {
    while (running) {
      await Promise.race([stopped, new Promise((r) => setTimeout(r, FOLLOW_INTERVAL_MS))]);
      if (!running) break;
      const window = await recentDeliveries(store, id, HISTORY_LIMIT);
      const fresh = window.filter((d) => !seen.has(d._id)).reverse();
      for (const d of fresh) cliIo().stdout(deliveryLine(d) + '\n');
      // Only ids still in the kept window can come back: forget the rest.
      seen.clear();
      for (const d of window) seen.add(d._id);
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
