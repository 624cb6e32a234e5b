// Data written by earlier versions, brought in line at start (api, worker and
// the CLI run this; each step is idempotent, safe when processes start together,
// and marked done so that later starts read one document per step).
import type { Store } from '../store/db.js';
import { indexPasskeyHolders } from '../store/passkeys.js';
import { listActiveSudoWindows, listSignedInSessions, moveLegacySessionClients } from '../store/session-lists-upgrade.js';
import { indexUserKeys } from '../store/user-keys.js';
import { moveLegacyHistories } from '../store/webhook-history-upgrade.js';
import { indexWebhookSlots } from '../store/webhook-slots.js';
import type { Logger } from './log.js';

/** The lookup documents FerretDB v1 needs (keys, holders, slots, session lists) and the one webhook history. */
export async function upgradeStoredData(store: Store, log: Logger): Promise<void> {
  const keyed = await indexUserKeys(store);
  if (keyed) log.info('wrote the email and username keys of existing users', { users: keyed });
  const holders = await indexPasskeyHolders(store);
  if (holders) log.info('marked the users who have passkeys', { users: holders });
  const slots = await indexWebhookSlots(store);
  if (slots.slotted) log.info('gave existing webhooks their owner slots', { webhooks: slots.slotted });
  if (slots.over) {
    log.warn(
      "webhooks beyond their owner's limit have no slot: they are neither listed nor sent events until some of that owner's webhooks are deleted and Keyflow restarts",
      {
        webhooks: slots.over,
      },
    );
  }
  const moved = await moveLegacyHistories(store);
  if (moved) log.info('moved per-webhook delivery histories into webhook_deliveries', { webhooks: moved });
  const sessionClients = await moveLegacySessionClients(store);
  if (sessionClients) log.info("moved the clients of sessions into the sessions' lists", { clients: sessionClients });
  const sessions = await listSignedInSessions(store);
  if (sessions) log.info("listed the signed-in sessions in their users' lists", { sessions });
  const sudoWindows = await listActiveSudoWindows(store);
  if (sudoWindows) log.info("listed the open sudo windows in their sessions' lists", { windows: sudoWindows });
}
