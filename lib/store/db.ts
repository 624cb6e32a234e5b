// MongoDB connection and the collections Keyflow keeps. Usage stays inside what
// FerretDB v1 supports: unique and plain indexes, single-document atomic
// updates; no transactions, TTL or partial indexes, change streams.
import { MongoClient, type Collection, type Db } from 'mongodb';
import type { Config } from '../config/env.js';
import type { AuthorizationCodeDoc } from './authorization-codes.js';
import type { AuthorizationRequestDoc } from './authorization-requests.js';
import type { ClientDoc } from './clients.js';
import type { ConsentDoc } from './consents.js';
import type { GrantDoc } from './grants.js';
import type { PasskeyDoc } from './passkeys.js';
import type { SessionDoc } from './sessions.js';
import type { SettingsDoc } from './settings.js';
import type { SigningKeyDoc } from './signing-keys.js';
import type { UserDoc } from './users.js';
import type { RefreshTokenDoc } from './refresh-tokens.js';
import type { WebhookDeliveryDoc, WebhookDoc } from './webhooks.js';
import type { WebhookEventDoc } from './webhook-outbox.js';
import type { AuditRecord } from './audit-log.js';
import type { LogoutDeliveryDoc } from './logout-deliveries.js';
import { EXPIRING_COLLECTIONS, type ExpiringCollection } from '../domain/expiring.js';

export { EXPIRING_COLLECTIONS, type ExpiringCollection };

export interface Store {
  client: MongoClient;
  db: Db;
  users: Collection<UserDoc>;
  clients: Collection<ClientDoc>;
  signingKeys: Collection<SigningKeyDoc>;
  settings: Collection<SettingsDoc>;
  sessions: Collection<SessionDoc>;
  authorizationRequests: Collection<AuthorizationRequestDoc>;
  authorizationCodes: Collection<AuthorizationCodeDoc>;
  consents: Collection<ConsentDoc>;
  grants: Collection<GrantDoc>;
  passkeys: Collection<PasskeyDoc>;
  refreshTokens: Collection<RefreshTokenDoc>;
  webhooks: Collection<WebhookDoc>;
  /** One collection per webhook: its delivery history. */
  webhookDeliveries(webhookId: string): Collection<WebhookDeliveryDoc>;
  webhookOutbox: Collection<WebhookEventDoc>;
  auditLog: Collection<AuditRecord>;
  logoutDeliveries: Collection<LogoutDeliveryDoc>;
  expiring(name: ExpiringCollection): Collection<{ _id: string; expiresAt: Date }>;
  close(): Promise<void>;
}

export interface StoreOptions {
  serverSelectionTimeoutMS?: number;
  /** Reports commands slower than this (name and collection only, never values). */
  slowCommandMs?: number;
  onSlowCommand?: (info: { command: string; collection: string; ms: number }) => void;
}

export function openStore(config: Pick<Config, 'mongo'>, options: StoreOptions = {}): Store {
  const client = new MongoClient(config.mongo.uri, {
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 5_000,
    connectTimeoutMS: 5_000,
    appName: 'keyflow',
    monitorCommands: options.onSlowCommand !== undefined,
  });
  if (options.onSlowCommand) {
    const started = new Map<number, { command: string; collection: string; at: number }>();
    client.on('commandStarted', (e) => started.set(e.requestId, { command: e.commandName, collection: String(e.command[e.commandName] ?? ''), at: performance.now() }));
    client.on('commandSucceeded', (e) => {
      const s = started.get(e.requestId);
      started.delete(e.requestId);
      const ms = s ? performance.now() - s.at : 0;
      if (s && ms >= (options.slowCommandMs ?? 50)) options.onSlowCommand!({ command: s.command, collection: s.collection, ms: Math.round(ms) });
    });
    client.on('commandFailed', (e) => started.delete(e.requestId));
  }
  return storeOn(client, client.db(config.mongo.database));
}

function storeOn(client: MongoClient, db: Db): Store {
  return {
    client,
    db,
    users: db.collection<UserDoc>('users'),
    clients: db.collection<ClientDoc>('clients'),
    signingKeys: db.collection<SigningKeyDoc>('signing_keys'),
    settings: db.collection<SettingsDoc>('settings'),
    sessions: db.collection<SessionDoc>('sessions'),
    authorizationRequests: db.collection<AuthorizationRequestDoc>('authorization_requests'),
    authorizationCodes: db.collection<AuthorizationCodeDoc>('authorization_codes'),
    consents: db.collection<ConsentDoc>('consents'),
    grants: db.collection<GrantDoc>('grants'),
    passkeys: db.collection<PasskeyDoc>('passkeys'),
    refreshTokens: db.collection<RefreshTokenDoc>('refresh_tokens'),
    webhooks: db.collection<WebhookDoc>('webhooks'),
    webhookDeliveries: (webhookId) => db.collection<WebhookDeliveryDoc>(`webhook_deliveries_${webhookId.replace(/[^A-Za-z0-9]/g, '')}`),
    webhookOutbox: db.collection<WebhookEventDoc>('webhook_events'),
    auditLog: db.collection<AuditRecord>('audit_log'),
    logoutDeliveries: db.collection<LogoutDeliveryDoc>('logout_deliveries'),
    expiring: (name) => db.collection(name),
    close: () => client.close(),
  };
}

/**
 * The same connection on another database: workflows started by an api carry
 * that api's database name, so their activities write where that api reads
 * (one worker can serve apis on several databases, as the tests do). Absent or
 * equal: the store itself.
 */
export function storeIn(store: Store, database: string | undefined): Store {
  return !database || database === store.db.databaseName ? store : storeOn(store.client, store.client.db(database));
}

/** Creates the indexes every process relies on; idempotent, run at start by api and worker. */
export async function ensureIndexes(store: Store): Promise<void> {
  await store.users.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
  await store.users.createIndex({ username: 1 }, { unique: true, name: 'username_unique' });
  await store.clients.createIndex({ ownerUserId: 1 }, { name: 'owner' });
  await store.sessions.createIndex({ sid: 1 }, { unique: true, name: 'sid_unique' });
  await store.passkeys.createIndex({ userId: 1 }, { name: 'user' });
  await store.grants.createIndex({ userId: 1, clientId: 1 }, { name: 'user_client' });
  // One key per (alg, generation): two processes generating the first key race safely.
  await store.signingKeys.createIndex({ alg: 1, generation: 1 }, { unique: true, name: 'alg_generation_unique' });
  for (const name of EXPIRING_COLLECTIONS) {
    await store.expiring(name).createIndex({ expiresAt: 1 }, { name: 'expires_at' });
  }
}

/** Waits until MongoDB answers a ping, for processes started alongside their database. */
export async function waitForStore(store: Store, timeoutMs: number, onRetry?: (err: Error) => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await store.db.command({ ping: 1 });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`MongoDB did not answer within ${timeoutMs / 1000} s: ${(err as Error).message}`, { cause: err });
      onRetry?.(err as Error);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: number }).code === 11000;
}
