// "Sign in with …" in progress: what the callback must check (state, nonce,
// PKCE verifier), kept server-side under the state and bound to the browser
// that started it. Single use: the callback deletes it, and only the caller
// whose deleteOne removed it may go on (atomic on FerretDB v1 too).
import type { UpstreamLoginDoc } from '../model/upstream-login.js';
import type { Store } from './db.js';
import { currentDate, currentTimeMs } from '../runtime/clock.js';

export const UPSTREAM_LOGIN_TTL_MS = 10 * 60_000;

const logins = (store: Store) => store.upstreamLogins;

export async function saveUpstreamLogin(store: Store, login: Omit<UpstreamLoginDoc, '_id' | 'expiresAt'>): Promise<void> {
  await logins(store).insertOne({ _id: login.checks.state, ...login, expiresAt: new Date(currentTimeMs() + UPSTREAM_LOGIN_TTL_MS) });
}

/** The login of this state, removed so no second callback can use it; null when unknown, used or expired. */
export async function takeUpstreamLogin(store: Store, state: string): Promise<UpstreamLoginDoc | null> {
  const login = await logins(store).findOne({ _id: state });
  if (!login) return null;
  if ((await logins(store).deleteOne({ _id: state })).deletedCount !== 1) return null;
  return login.expiresAt > currentDate() ? login : null;
}
