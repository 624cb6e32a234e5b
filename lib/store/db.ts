// MongoDB connection and the collections Keyflow keeps. Usage stays inside what
// FerretDB v1 supports: unique and plain indexes, single-document atomic
// updates; no transactions, TTL or partial indexes, change streams.
import {
  MongoClient,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type Collection,
  type Db,
  type Document,
  type OptionalUnlessRequiredId,
} from 'mongodb';
import type { Config } from '../config/env.js';
import { countDependencyTimeout, countMongoCommand } from '../runtime/metrics.js';
import type { ClientDoc } from '../model/clients.js';
import type { ConsentDoc } from '../model/consents.js';
import { EXPIRING_COLLECTIONS, type ExpiringCollection, type ExpiringDoc } from '../model/expiring.js';
import type { GrantDoc } from '../model/grants.js';
import type { PasskeyDoc } from '../model/passkeys.js';
import type { AuthorizationRequestDoc } from '../model/pending-authorization.js';
import type { PersonalAccessTokenDoc } from '../model/personal-access-tokens.js';
import type { ParRequestDoc } from '../model/pushed-request.js';
import type { RateLimitDoc } from '../model/rate-limits.js';
import type { SessionDoc, SessionListDoc } from '../model/sessions.js';
import type { SigningKeyDoc } from '../model/signing-keys.js';
import type { SettingsDoc } from '../model/site-settings.js';
import type { UserDoc, UserKeyDoc } from '../model/users.js';
// Projections of durable flows.
import type { DeviceCodeDoc, DevicePollDoc, DeviceUserCodeDoc } from '../model/device-authorization.js';
import type { StepUpAuditDoc, StepUpChallengeDoc, StepUpCodeDoc } from '../model/step-up-challenge.js';
import type { SudoWindowDoc } from '../model/sudo-window.js';
import type { RefreshRotationDoc, RefreshTokenDoc } from '../model/refresh-family.js';
import type { WebhookDeliveryHeadDoc, WebhookDeliveryIdDoc, WebhookDeliveryRecordDoc } from '../model/webhook-delivery.js';
import type { WebhookDoc, WebhookSlotDoc } from '../model/webhooks.js';
import type { WebhookEventDoc } from '../model/webhook-events.js';
import type { AuditBatchBoundsDoc, AuditBatchDoc, AuditIndexDoc, AuditMetaDoc, PendingAuditDoc, SealedAuditDoc } from '../model/audit-storage.js';
import type { LogoutDeliveryDoc } from '../model/backchannel-logout.js';
import type { TeamDoc, TeamMemberDoc } from '../model/teams.js';
import type { TeamInvitationDoc } from '../model/team-invitations.js';
import type { OAuthSourceDoc, SocialAccountDoc } from '../model/oauth-sources.js';
import type { GpgKeyDoc } from '../model/gpg-keys.js';
import type { DomainDoc } from '../model/custom-domains.js';
import type { UpstreamLoginDoc } from '../model/upstream-login.js';
import type { InviteClaimDoc, InviteDoc } from '../model/invites.js';

/** Every collection Keyflow keeps, by name; no other module names one. */
export interface Store {
  client: MongoClient;
  db: Db;
  users: Collection<UserDoc>;
  /** Emails and usernames, each naming its user: lookups by `_id` (store/user-lookups.ts). */
  userKeys: Collection<UserKeyDoc>;
  clients: Collection<ClientDoc>;
  signingKeys: Collection<SigningKeyDoc>;
  settings: Collection<SettingsDoc>;
  sessions: Collection<SessionDoc>;
  /** A session's lists, the clients it signed into and its sudo windows (session-lists.ts), and each user's sessions (user-sessions.ts). */
  sessionLists: Collection<SessionListDoc>;
  authorizationRequests: Collection<AuthorizationRequestDoc>;
  parRequests: Collection<ParRequestDoc>;
  consents: Collection<ConsentDoc>;
  grants: Collection<GrantDoc>;
  personalAccessTokens: Collection<PersonalAccessTokenDoc>;
  /** Single use (store/single-use.ts). */
  replayGuards: Collection<ExpiringDoc>;
  rateLimits: Collection<RateLimitDoc>;
  deviceCodes: Collection<DeviceCodeDoc>;
  deviceUserCodes: Collection<DeviceUserCodeDoc>;
  devicePolls: Collection<DevicePollDoc>;
  stepUpChallenges: Collection<StepUpChallengeDoc>;
  stepUpCodes: Collection<StepUpCodeDoc>;
  stepUpAudit: Collection<StepUpAuditDoc>;
  sudoWindows: Collection<SudoWindowDoc>;
  passkeys: Collection<PasskeyDoc>;
  /** One per user with passkeys (`_id` the user id): store/passkeys.ts. */
  passkeyHolders: Collection<{ _id: string }>;
  refreshTokens: Collection<RefreshTokenDoc>;
  /** The same collection's rotation claims (`_id` `rotated:<hash>`, store/refresh-rotations.ts): purged with the tokens. */
  refreshRotations: Collection<RefreshRotationDoc>;
  webhooks: Collection<WebhookDoc>;
  /** Each webhook holds one of its owner's numbered slots: a user's webhooks found by `_id` (store/webhook-slots.ts). */
  webhookSlots: Collection<WebhookSlotDoc>;
  /** Every webhook's delivery history, one record per delivery (store/webhook-history.ts). */
  webhookDeliveries: Collection<WebhookDeliveryRecordDoc>;
  /** One per webhook with a history: where its next record goes. */
  webhookDeliveryHeads: Collection<WebhookDeliveryHeadDoc>;
  /** One per recorded delivery: its record's seq. */
  webhookDeliveryIds: Collection<WebhookDeliveryIdDoc>;
  webhookOutbox: Collection<WebhookEventDoc>;
  /** The audit trail (store/audit-records.ts): the inbox, sealed batches and records, their search index, the chain's head. */
  auditPending: Collection<PendingAuditDoc>;
  auditBatches: Collection<AuditBatchDoc>;
  auditBatchBounds: Collection<AuditBatchBoundsDoc>;
  auditRecords: Collection<SealedAuditDoc>;
  auditIndex: Collection<AuditIndexDoc>;
  auditMeta: Collection<AuditMetaDoc>;
  logoutDeliveries: Collection<LogoutDeliveryDoc>;
  teams: Collection<TeamDoc>;
  /** One document per (team, user): `${teamId}:${userId}`. */
  teamMembers: Collection<TeamMemberDoc>;
  /** Pending invitations to join a team; `slot` is unique (store/team-invitations.ts). */
  teamInvitations: Collection<TeamInvitationDoc>;
  oauthSources: Collection<OAuthSourceDoc>;
  socialAccounts: Collection<SocialAccountDoc>;
  /** "Sign in with …" in progress, under the state sent upstream (single use). */
  upstreamLogins: Collection<UpstreamLoginDoc>;
  /** Users' GPG public keys: one per (user, fingerprint). */
  gpgKeys: Collection<GpgKeyDoc>;
  /** Users' custom domains; a name is unique per user, not across users. */
  domains: Collection<DomainDoc>;
  /** Invitations to sign up (the token only as a hash). */
  invites: Collection<InviteDoc>;
  /** One per invitation once a sign-up uses it or an admin revokes it: the first insert wins. */
  inviteClaims: Collection<InviteClaimDoc>;
  expiring(name: ExpiringCollection): Collection<{ _id: string; expiresAt: Date }>;
  close(): Promise<void>;
}

export interface StoreOptions {
  serverSelectionTimeoutMS?: number;
  /**
   * The longest one call may take when MongoDB is down or stalled, rather than
   * until the driver's monitor gives up (tens of seconds): the api's request
   * paths. Each step of an attempt (finding the server, a pooled connection,
   * the answer) gets half of it, as the driver retries a failed read or write
   * once. Unset: only server selection is bounded.
   */
  callTimeoutMs?: number;
  /** Reports commands slower than this (name and collection only, never values). */
  slowCommandMs?: number;
  onSlowCommand?: (info: SlowCommand) => void;
}

export type SlowCommand = {
  command: string;
  collection: string;
  ms: number;
};

export function openStore(config: Pick<Config, 'mongo'>, options: StoreOptions = {}): Store {
  const step = options.callTimeoutMs === undefined ? undefined : Math.ceil(options.callTimeoutMs / 2);
  const client = new MongoClient(config.mongo.uri, {
    serverSelectionTimeoutMS: step ?? options.serverSelectionTimeoutMS ?? 5_000,
    connectTimeoutMS: Math.min(step ?? 5_000, 5_000),
    // (The driver's own timeoutMS, which bounded an operation as a whole, has no effect in driver 7.)
    ...(step ? { socketTimeoutMS: step, waitQueueTimeoutMS: step } : {}),
    appName: 'keyflow',
    // Command events feed the per-command counters (lib/runtime/metrics.ts) as well as the slow-command log.
    monitorCommands: true,
  });
  client.on('commandStarted', (e) => countMongoCommand(e.commandName));
  // Calls that found MongoDB unreachable or too slow: a command cut off (isStoreUnavailable's errors), no
  // pooled connection in time or none could be made, a failed heartbeat (while MongoDB is down the
  // monitor's checks are what fails: operations then wait for server selection, which no event reports).
  client.on('commandFailed', (e) => {
    if (isStoreUnavailable(e.failure)) countDependencyTimeout('mongodb');
  });
  client.on('connectionCheckOutFailed', (e) => {
    if (e.reason === 'timeout' || e.reason === 'connectionError') countDependencyTimeout('mongodb');
  });
  client.on('serverHeartbeatFailed', () => countDependencyTimeout('mongodb'));
  if (options.onSlowCommand) {
    const started = new Map<number, { command: string; collection: string; at: number }>();
    client.on('commandStarted', (e) =>
      started.set(e.requestId, { command: e.commandName, collection: String(e.command[e.commandName] ?? ''), at: performance.now() }),
    );
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
    userKeys: db.collection<UserKeyDoc>('user_keys'),
    clients: db.collection<ClientDoc>('clients'),
    signingKeys: db.collection<SigningKeyDoc>('signing_keys'),
    settings: db.collection<SettingsDoc>('settings'),
    sessions: db.collection<SessionDoc>('sessions'),
    sessionLists: db.collection<SessionListDoc>('session_lists'),
    authorizationRequests: db.collection<AuthorizationRequestDoc>('authorization_requests'),
    parRequests: db.collection<ParRequestDoc>('par_requests'),
    consents: db.collection<ConsentDoc>('consents'),
    grants: db.collection<GrantDoc>('grants'),
    personalAccessTokens: db.collection<PersonalAccessTokenDoc>('personal_access_tokens'),
    replayGuards: db.collection<ExpiringDoc>('replay_guards'),
    rateLimits: db.collection<RateLimitDoc>('rate_limits'),
    deviceCodes: db.collection<DeviceCodeDoc>('device_codes'),
    deviceUserCodes: db.collection<DeviceUserCodeDoc>('device_user_codes'),
    devicePolls: db.collection<DevicePollDoc>('device_polls'),
    stepUpChallenges: db.collection<StepUpChallengeDoc>('step_up_challenges'),
    stepUpCodes: db.collection<StepUpCodeDoc>('step_up_codes'),
    stepUpAudit: db.collection<StepUpAuditDoc>('step_up_audit'),
    sudoWindows: db.collection<SudoWindowDoc>('sudo_windows'),
    passkeys: db.collection<PasskeyDoc>('passkeys'),
    passkeyHolders: db.collection<{ _id: string }>('passkey_holders'),
    refreshTokens: db.collection<RefreshTokenDoc>('refresh_tokens'),
    refreshRotations: db.collection<RefreshRotationDoc>('refresh_tokens'),
    webhooks: db.collection<WebhookDoc>('webhooks'),
    webhookSlots: db.collection<WebhookSlotDoc>('webhook_slots'),
    webhookDeliveries: db.collection<WebhookDeliveryRecordDoc>('webhook_deliveries'),
    webhookDeliveryHeads: db.collection<WebhookDeliveryHeadDoc>('webhook_delivery_heads'),
    webhookDeliveryIds: db.collection<WebhookDeliveryIdDoc>('webhook_delivery_ids'),
    webhookOutbox: db.collection<WebhookEventDoc>('webhook_events'),
    auditPending: db.collection<PendingAuditDoc>('audit_pending'),
    auditBatches: db.collection<AuditBatchDoc>('audit_batches'),
    auditBatchBounds: db.collection<AuditBatchBoundsDoc>('audit_batch_bounds'),
    auditRecords: db.collection<SealedAuditDoc>('audit_records'),
    auditIndex: db.collection<AuditIndexDoc>('audit_index'),
    auditMeta: db.collection<AuditMetaDoc>('audit_meta'),
    logoutDeliveries: db.collection<LogoutDeliveryDoc>('logout_deliveries'),
    teams: db.collection<TeamDoc>('teams'),
    teamMembers: db.collection<TeamMemberDoc>('team_members'),
    teamInvitations: db.collection<TeamInvitationDoc>('team_invitations'),
    oauthSources: db.collection<OAuthSourceDoc>('oauth_sources'),
    socialAccounts: db.collection<SocialAccountDoc>('social_accounts'),
    upstreamLogins: db.collection<UpstreamLoginDoc>('upstream_logins'),
    gpgKeys: db.collection<GpgKeyDoc>('gpg_keys'),
    domains: db.collection<DomainDoc>('domains'),
    invites: db.collection<InviteDoc>('invites'),
    inviteClaims: db.collection<InviteClaimDoc>('invite_claims'),
    expiring: (name) => db.collection(name),
    close: () => closeWithoutEndSessions(client),
  };
}

/**
 * Closes the client without the `endSessions` command the driver sends at close
 * for the sessions it pooled: FerretDB v1 has no such command and answers it
 * with a 19-line warning (and a reset connection) on every process exit, a CLI
 * call included. Nothing is lost: FerretDB keeps no sessions, and MongoDB
 * expires unused ones by itself (logicalSessionTimeoutMinutes). The pool is the
 * driver's internal state; if its shape changes, close() is merely noisy again.
 */
async function closeWithoutEndSessions(client: MongoClient): Promise<void> {
  (client as unknown as { s?: { sessionPool?: { sessions?: { clear?: () => void } } } }).s?.sessionPool?.sessions?.clear?.();
  await client.close();
}

/** Creates the indexes every process relies on; idempotent, run at start by api and worker. */
export async function ensureIndexes(store: Store): Promise<void> {
  await store.users.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
  await store.users.createIndex({ username: 1 }, { unique: true, name: 'username_unique' });
  await store.clients.createIndex({ ownerUserId: 1 }, { name: 'owner' });
  await store.sessions.createIndex({ sid: 1 }, { unique: true, name: 'sid_unique' });
  await store.passkeys.createIndex({ userId: 1 }, { name: 'user' });
  await store.grants.createIndex({ userId: 1, clientId: 1 }, { name: 'user_client' });
  await store.teams.createIndex({ slug: 1 }, { unique: true, name: 'slug_unique' });
  await store.teams.createIndex({ parentId: 1 }, { name: 'parent' });
  await store.teamMembers.createIndex({ userId: 1 }, { name: 'user' });
  await store.teamMembers.createIndex({ teamId: 1 }, { name: 'team' });
  await store.teamInvitations.createIndex({ slot: 1 }, { unique: true, name: 'slot_unique' });
  await store.teamInvitations.createIndex({ teamId: 1 }, { name: 'team' });
  await store.teamInvitations.createIndex({ userId: 1 }, { name: 'user' });
  await store.oauthSources.createIndex({ slug: 1 }, { unique: true, name: 'slug_unique' });
  await store.socialAccounts.createIndex({ sourceId: 1, providerUserId: 1 }, { unique: true, name: 'source_subject_unique' });
  await store.socialAccounts.createIndex({ userId: 1 }, { name: 'user' });
  await store.gpgKeys.createIndex({ userId: 1, fingerprint: 1 }, { unique: true, name: 'user_fingerprint_unique' });
  await store.domains.createIndex({ userId: 1, domain: 1 }, { unique: true, name: 'user_domain_unique' });
  await store.invites.createIndex({ tokenHash: 1 }, { unique: true, name: 'token_hash_unique' });
  await store.invites.createIndex({ createdAt: -1 }, { name: 'created_at' });
  // One key per (alg, generation): two processes generating the first key race safely.
  await store.signingKeys.createIndex({ alg: 1, generation: 1 }, { unique: true, name: 'alg_generation_unique' });
  for (const name of EXPIRING_COLLECTIONS) {
    await store.expiring(name).createIndex({ expiresAt: 1 }, { name: 'expires_at' });
  }
}

/** Resolves when MongoDB answers a ping (readiness). */
export async function pingStore(store: Store): Promise<void> {
  await store.db.command({ ping: 1 });
}

/** Drops the whole database: for benchmarks and tests that made one of their own. */
export async function dropDatabase(store: Store): Promise<void> {
  await store.db.dropDatabase();
}

/**
 * Connects (again) and pings: one attempt of a process waiting for MongoDB at
 * start. After a failed first connection the driver keeps the topology it
 * closed, and every later operation fails with "Topology is closed"; connect()
 * replaces it.
 */
export async function connectStore(store: Store): Promise<void> {
  await store.client.connect();
  await pingStore(store);
}

/** MongoDB errors that say the database is unreachable or too slow (not that the operation was wrong): a 503 on request paths. */
const UNAVAILABLE_ERROR_NAMES = new Set(['MongoWaitQueueTimeoutError', 'MongoPoolClosedError']);
/** Server codes of a node shutting down or stepping down. */
const UNAVAILABLE_SERVER_CODES = new Set([91, 189, 10107, 11600, 11602, 13435, 13436]);

export function isStoreUnavailable(err: unknown): boolean {
  return (
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoTopologyClosedError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoOperationTimeoutError ||
    (err instanceof MongoError && UNAVAILABLE_ERROR_NAMES.has(err.name)) ||
    (err instanceof MongoServerError && typeof err.code === 'number' && UNAVAILABLE_SERVER_CODES.has(err.code))
  );
}

/**
 * A unique index refused the write. An insert reports it as code 11000; FerretDB
 * v1 reports an update's or replace's clash as an InternalError naming SQLite's
 * "UNIQUE constraint failed" instead.
 */
export function isDuplicateKeyError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: number; message?: unknown };
  return code === 11000 || (typeof message === 'string' && message.includes('UNIQUE constraint failed'));
}

/**
 * Inserts many documents in one unordered write; those whose unique key is
 * taken are left out. Returns their indexes in `docs` (any other failure throws).
 */
export async function insertManyAbsent<T extends Document>(collection: Collection<T>, docs: OptionalUnlessRequiredId<T>[]): Promise<number[]> {
  if (!docs.length) return [];
  try {
    await collection.insertMany(docs, { ordered: false });
    return [];
  } catch (err) {
    const writeErrors = (err as { writeErrors?: WriteError | WriteError[] }).writeErrors;
    const errors = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
    if (!errors.length || !errors.every(isDuplicateKeyError)) throw err;
    return errors.map((e) => e.index);
  }
}
interface WriteError {
  code?: number;
  index: number;
}

/** Inserts `doc` unless its unique key is taken (false then): the one atomic "first writer wins" FerretDB v1 offers. */
export async function insertIfAbsent<T extends Document>(collection: Collection<T>, doc: OptionalUnlessRequiredId<T>): Promise<boolean> {
  try {
    await collection.insertOne(doc);
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

/**
 * Inserts `docs` in one unordered insertMany; those whose unique key is taken
 * are skipped (so a bulk load interrupted half-way can simply run again).
 */
export async function insertManyIfAbsent<T extends Document>(collection: Collection<T>, docs: OptionalUnlessRequiredId<T>[]): Promise<void> {
  if (docs.length === 0) return;
  try {
    await collection.insertMany(docs, { ordered: false });
  } catch (err) {
    const writeErrors = (err as { writeErrors?: unknown }).writeErrors;
    const errors = Array.isArray(writeErrors) ? writeErrors : [err];
    if (!errors.every(isDuplicateKeyError)) throw err;
  }
}
