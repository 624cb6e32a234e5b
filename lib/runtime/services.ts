// What api and worker both need at start: configuration checked, MongoDB
// reachable (waited for as long as it takes) with its indexes, the KEK, and
// signing keys that exist.
import type { Config } from '../config/env.js';
import { loadKek, type Kek } from '../security/kek.js';
import { Keyring } from '../keys/keyring.js';
import { createMlDsa65 } from '../keys/mldsa.js';
import { Signer } from '../keys/signer.js';
import { connectStore, ensureIndexes, openStore, type SlowCommand, type Store } from '../store/db.js';
import { countClientsWithIdTokenAlg } from '../store/clients.js';
import type { Logger } from './log.js';
import { waitFor } from './wait-for.js';
import { traceMongoCommands } from '../observability/mongodb-spans.js';

export interface CoreServices {
  store: Store;
  kek: Kek;
  keyring: Keyring;
  signer: Signer;
}

export interface StartOptions {
  /** Ends the wait for MongoDB (the process is stopping). */
  signal?: AbortSignal;
  /** Told what the start waits for, as it changes (the api's readiness says it). */
  onProgress?: (state: string) => void;
  /** Bounds every call of the store (the api's: a request answers 503 rather than wait). */
  callTimeoutMs?: number;
}

export async function startCoreServices(config: Config, log: Logger, options: StartOptions = {}): Promise<CoreServices> {
  // At debug level, slow MongoDB commands are logged (command and collection only).
  const slow = config.logLevel === 'debug' ? { slowCommandMs: 50, onSlowCommand: (c: SlowCommand) => log.debug('slow mongodb command', c) } : {};
  const store = openStore(config, { ...slow, callTimeoutMs: options.callTimeoutMs });
  traceMongoCommands(store.client, config.mongo.database);
  try {
    options.onProgress?.('waiting for MongoDB');
    await waitFor('MongoDB', () => connectStore(store), log, {
      signal: options.signal,
      fields: { uri: redactUri(config.mongo.uri) },
      onFailure: (err) => options.onProgress?.(`waiting for MongoDB: ${err.message.split('\n')[0]}`),
    });
    options.onProgress?.('starting: indexes, stored data, signing keys');
    return await prepare(config, log, store, options.callTimeoutMs !== undefined);
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}

async function prepare(config: Config, log: Logger, store: Store, boundedCalls: boolean): Promise<CoreServices> {
  // Index builds on a large database may take longer than a call's bound: a client without it does them.
  const maintenance = boundedCalls ? openStore(config) : store;
  try {
    await ensureIndexes(maintenance);
  } finally {
    if (maintenance !== store) await maintenance.close();
  }
  const kek = loadKek(config.kek, config.dataDir);
  const mldsa = createMlDsa65(config.mldsa);
  const keyring = new Keyring(store, kek, mldsa, config.idTokenAlgs);
  await keyring.ensureInitialKeys();
  log.info('signing keys ready', { mldsa: mldsa.implementation, kekSource: kek.source });
  if (!config.idTokenAlgs.includes('ML-DSA-65')) {
    const waiting = await countClientsWithIdTokenAlg(store, 'ML-DSA-65');
    if (waiting) log.warn('ML_DSA_SIGNING=off: clients registered for ML-DSA-65 ID tokens get RS256 ones', { clients: waiting });
  }
  return { store, kek, keyring, signer: new Signer(keyring, config.idTokenAlgs) };
}

/** A connection string without its password, for logs. */
export function redactUri(uri: string): string {
  return uri.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:****@');
}
