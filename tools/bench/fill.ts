// The scale benchmark's filler: users, clients, grants with their refresh
// families' projections, and webhooks with delivery histories, written
// through the store's functions over the product's document builders, in
// batches of 1,000 (FerretDB v1 on SQLite: one insertMany per batch).
//
// Resumable: every filled document has an id derived from its kind and number
// (UUID-shaped like the product's), a batch counts as done when its last
// document is there (one lookup by `_id`), and the bulk inserts skip ids that
// exist, so an interrupted fill just runs again.
import type { RefreshTokenDoc } from '../../lib/model/refresh-family.js';
import type { WebhookDeliveryDoc } from '../../lib/model/webhook-delivery.js';
import { newClient } from '../../lib/model/client-secrets.js';
import { NewUserInput, newUserAccount, usernameFromEmail, type UserDoc } from '../../lib/model/users.js';
import type { Kek } from '../../lib/security/kek.js';
import { hashSecret } from '../../lib/security/secrets.js';
import { findClient, insertClients } from '../../lib/store/clients.js';
import type { Store } from '../../lib/store/db.js';
import { findGrant, openGrants } from '../../lib/store/grants.js';
import { recordFirstRefreshTokens, recordRotations } from '../../lib/store/refresh-tokens.js';
import { findUserById, insertUsers } from '../../lib/store/users.js';
import { recentDeliveries, recordDeliveries } from '../../lib/store/webhook-history.js';
import { createWebhooks } from '../../lib/store/webhooks.js';

const BATCH = 1_000;
const DAY = 86_400_000;
const PROGRESS_MS = 10_000;

/** How much to fill: the brief's sizes times `scale`. */
export interface FillPlan {
  users: number;
  clients: number;
  grants: number;
  /** Rotations recorded per refresh family (each adds a superseded token to the projection). */
  rotations: number;
  webhooks: number;
  deliveriesPerWebhook: number;
}

export function fillPlan(scale: number): FillPlan {
  const n = (full: number) => Math.max(1, Math.round(full * scale));
  return { users: n(100_000), clients: n(100_000), grants: n(200_000), rotations: 1, webhooks: n(50_000), deliveriesPerWebhook: 5 };
}

type Kind = 'user' | 'client' | 'grant' | 'webhook' | 'delivery';
const KIND_DIGIT: Record<Kind, number> = { user: 1, client: 2, grant: 3, webhook: 4, delivery: 5 };

/** The id of filled document `i` of a kind: a UUID (version 4 layout), so ids look like the product's. */
export const fillId = (kind: Kind, i: number): string => `5ca1ef11-000${KIND_DIGIT[kind]}-4000-8000-${i.toString(16).padStart(12, '0')}`;

const fillEmail = (i: number) => `scale-${i}@fill.keyflow.test`;

/** How many filled documents of each kind are there: counted batch by batch (a lookup by `_id` each). */
export interface FillCounts {
  users: number;
  clients: number;
  grants: number;
  webhooks: number;
}

/** One batch's range and whether its last document is there. */
async function doneUpTo(total: number, isThere: (i: number) => Promise<boolean>): Promise<number> {
  let done = 0;
  for (let start = 0; start < total; start += BATCH) {
    const end = Math.min(total, start + BATCH);
    if (!(await isThere(end - 1))) break;
    done = end;
  }
  return done;
}

const isUserThere = async (store: Store, i: number) => (await findUserById(store, fillId('user', i))) !== null;
const isClientThere = async (store: Store, i: number) => (await findClient(store, fillId('client', i))) !== null;
const isGrantThere = async (store: Store, i: number) => (await findGrant(store, fillId('grant', i))) !== null;
const isWebhookThere = async (store: Store, plan: FillPlan, i: number) =>
  (await recentDeliveries(store, fillId('webhook', i), 1)).some((d) => d._id === fillId('delivery', (i + 1) * plan.deliveriesPerWebhook - 1));

export async function countFilled(store: Store, plan: FillPlan): Promise<FillCounts> {
  return {
    users: await doneUpTo(plan.users, (i) => isUserThere(store, i)),
    clients: await doneUpTo(plan.clients, (i) => isClientThere(store, i)),
    grants: await doneUpTo(plan.grants, (i) => isGrantThere(store, i)),
    webhooks: await doneUpTo(plan.webhooks, (i) => isWebhookThere(store, plan, i)),
  };
}

/** Writes batch after batch from the first one not done, reporting progress. */
async function fillKind(
  name: string,
  total: number,
  isThere: (i: number) => Promise<boolean>,
  writeBatch: (start: number, end: number) => Promise<void>,
  progress: (line: string) => void,
): Promise<void> {
  const from = await doneUpTo(total, isThere);
  const started = Date.now();
  if (from > 0) progress(`${name}: ${from.toLocaleString('en')} of ${total.toLocaleString('en')} already there`);
  let printed = 0;
  for (let start = from; start < total; start += BATCH) {
    const end = Math.min(total, start + BATCH);
    await writeBatch(start, end);
    // A line every few seconds and at the end: enough to see it move and to estimate the rest.
    if (end < total && Date.now() - printed < PROGRESS_MS) continue;
    printed = Date.now();
    const rate = Math.round((end - from) / Math.max(0.001, (Date.now() - started) / 1000));
    progress(`${name}: ${end.toLocaleString('en')} / ${total.toLocaleString('en')} (${rate.toLocaleString('en')}/s)`);
  }
}

const range = (start: number, end: number) => Array.from({ length: end - start }, (_, k) => start + k);

/**
 * Filled accounts: one account made by newUserAccount (so one scrypt hash,
 * shared by every filled user: hashing 100,000 passwords is not what is
 * measured), each user's email through the account schema and its username by
 * the product's rule.
 */
async function userBuilder(): Promise<(i: number) => UserDoc> {
  const template = await newUserAccount({ email: 'scale-template@fill.keyflow.test', password: 'scale fill password 1' });
  return (i) => {
    const { email } = NewUserInput.parse({ email: fillEmail(i), password: 'scale fill password 1' });
    const now = new Date();
    return { ...template, _id: fillId('user', i), email, username: usernameFromEmail(email), createdAt: now, updatedAt: now };
  };
}

/** The refresh token hash of family `i` after `r` rotations (the tokens themselves are never used). */
const refreshHash = (i: number, r: number) => hashSecret(`scale-fill-refresh-${i}-${r}`);

/** What the token endpoint records for a family's first token (lib/grants/issuance.ts), for filled grant `i`. */
function firstRefreshToken(plan: FillPlan, i: number): RefreshTokenDoc {
  const authTime = new Date(Date.now() - DAY);
  return {
    _id: refreshHash(i, 0),
    grantId: fillId('grant', i),
    clientId: fillId('client', i % plan.clients),
    userId: fillId('user', i % plan.users),
    scope: ['openid', 'profile', 'offline_access'],
    resources: [],
    auth: { authTime, amr: ['pwd'], acr: 'pwd', sid: null },
    issuedAt: authTime,
    expiresAt: new Date(authTime.getTime() + 30 * DAY),
  };
}

function deliveriesOf(plan: FillPlan, webhook: number): WebhookDeliveryDoc[] {
  return range(0, plan.deliveriesPerWebhook).map((k) => ({
    _id: fillId('delivery', webhook * plan.deliveriesPerWebhook + k),
    webhookId: fillId('webhook', webhook),
    event: 'profile.updated',
    success: k % 4 !== 3,
    statusCode: k % 4 !== 3 ? 200 : 503,
    error: null,
    deliveredAt: new Date(Date.now() - (plan.deliveriesPerWebhook - k) * 60_000),
    durationMs: 40 + k,
  }));
}

/** Fills what is missing of `plan`; idempotent. */
export async function fill(store: Store, kek: Kek, plan: FillPlan, progress: (line: string) => void): Promise<void> {
  const user = await userBuilder();
  await fillKind(
    'users',
    plan.users,
    (i) => isUserThere(store, i),
    (start, end) => insertUsers(store, range(start, end).map(user)),
    progress,
  );

  await fillKind(
    'clients',
    plan.clients,
    (i) => isClientThere(store, i),
    (start, end) =>
      insertClients(
        store,
        range(start, end).map((i) => {
          const { client } = newClient({
            name: `scale app ${i}`,
            redirectUris: [{ type: 'equals', value: `https://app-${i}.fill.keyflow.test/cb` }],
            allowedScopes: ['openid', 'profile', 'email', 'offline_access'],
            idTokenSignedResponseAlg: 'RS256',
            ownerUserId: fillId('user', i % plan.users),
          });
          return { ...client, _id: fillId('client', i) };
        }),
      ),
    progress,
  );

  // A batch's grants go last: a grant there means its family's projection is too.
  await fillKind(
    'grants (with refresh families)',
    plan.grants,
    (i) => isGrantThere(store, i),
    async (start, end) => {
      let tokens = range(start, end).map((i) => firstRefreshToken(plan, i));
      await recordFirstRefreshTokens(store, tokens);
      for (let r = 1; r <= plan.rotations; r++) {
        const rotations = tokens.map((previous, k) => ({ previous, newHash: refreshHash(start + k, r) }));
        await recordRotations(store, rotations);
        tokens = rotations.map(({ previous, newHash }) => ({ ...previous, _id: newHash }));
      }
      await openGrants(
        store,
        tokens.map((t, k) => ({
          _id: fillId('grant', start + k),
          clientId: t.clientId,
          userId: t.userId,
          scope: t.scope,
          sid: t.auth.sid,
          authTime: t.auth.authTime,
          amr: t.auth.amr,
          acr: t.auth.acr,
        })),
      );
    },
    progress,
  );

  // A new webhook's history is one insertMany into each history collection; the batch's last webhook goes last.
  await fillKind(
    `webhooks (${plan.deliveriesPerWebhook} deliveries each)`,
    plan.webhooks,
    (i) => isWebhookThere(store, plan, i),
    async (start, end) => {
      await createWebhooks(
        store,
        kek,
        range(start, end).map((i) => ({
          id: fillId('webhook', i),
          scope: 'user' as const,
          ownerUserId: fillId('user', i % plan.users),
          // Webhook i is its owner's floor(i / users)-th: the same slot when a load runs again.
          slot: Math.floor(i / plan.users),
          name: `scale hook ${i}`,
          url: `https://hooks-${i}.fill.keyflow.test/keyflow`,
          events: ['profile.updated'],
        })),
      );
      const ids = range(start, end);
      const last = ids.pop()!;
      for (let k = 0; k < ids.length; k += 8)
        await Promise.all(ids.slice(k, k + 8).map((i) => recordDeliveries(store, fillId('webhook', i), deliveriesOf(plan, i))));
      await recordDeliveries(store, fillId('webhook', last), deliveriesOf(plan, last));
    },
    progress,
  );
}
