// What api and worker both need at start: configuration checked, MongoDB
// reachable with its indexes (and data of earlier versions upgraded), the
// KEK, and signing keys that exist.
import type { Config } from '../config/env.js';
import { loadKek, type Kek } from '../security/kek.js';
import { Keyring } from '../keys/keyring.js';
import { createMlDsa65 } from '../keys/mldsa.js';
import { Signer } from '../keys/signer.js';
import { ensureIndexes, openStore, waitForStore, type Store } from '../store/db.js';
import { sealClearSecretSettings } from '../store/settings.js';
import { indexPasskeyHolders } from '../store/passkeys.js';
import { indexUserKeys } from '../store/user-keys.js';
import { indexWebhookSlots } from '../store/webhook-slots.js';
import { moveLegacyHistories } from '../store/webhook-history-upgrade.js';
import type { Logger } from './log.js';

export interface CoreServices {
  store: Store;
  kek: Kek;
  keyring: Keyring;
  signer: Signer;
}

export async function startCoreServices(config: Config, log: Logger): Promise<CoreServices> {
  // At debug level, slow MongoDB commands are logged (command and collection only).
  const store = openStore(config, config.logLevel === 'debug' ? { slowCommandMs: 50, onSlowCommand: (c) => log.debug('slow mongodb command', c) } : {});
  let warned = false;
  await waitForStore(store, 120_000, (err) => {
    if (!warned) log.warn('waiting for MongoDB', { uri: redactUri(config.mongo.uri), error: err.message });
    warned = true;
  });
  await ensureIndexes(store);
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
  const kek = loadKek(config.kek, config.dataDir);
  const sealed = await sealClearSecretSettings(store, kek);
  if (sealed.length) log.info('sealed site settings stored in clear by an earlier version', { settings: sealed.join(',') });
  const mldsa = createMlDsa65(config.mldsa);
  const keyring = new Keyring(store, kek, mldsa);
  await keyring.ensureInitialKeys();
  log.info('signing keys ready', { mldsa: mldsa.implementation, kek: kek.source });
  return { store, kek, keyring, signer: new Signer(keyring) };
}

/** A connection string without its password, for logs. */
export function redactUri(uri: string): string {
  return uri.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:****@');
}
