// Authorization codes: stored as hashes, single use (store/single-use.ts),
// short-lived, bound to client, redirect URI and PKCE challenge.
import { hashSecret, newSecret } from '../security/secrets.js';
import type { Store } from './db.js';
import { claimOnce } from './single-use.js';
import type { Acr } from './sessions.js';

export interface AuthorizationCodeDoc {
  _id: string; // hash of the code
  clientId: string;
  userId: string;
  redirectUri: string;
  scope: string[];
  nonce: string | null;
  codeChallenge: string | null;
  authTime: Date;
  amr: string[];
  acr: Acr;
  sid: string;
  /** The grant the tokens of this code belong to (revoked if the code is used twice). */
  grantId: string;
  /** RFC 8707 resource indicators granted with the code (absent on codes issued before they existed). */
  resources?: string[];
  createdAt: Date;
  expiresAt: Date;
}

/** 60 seconds: a code is exchanged right after the redirect (RFC 6749 §4.1.2 recommends at most 10 minutes). */
export const AUTHORIZATION_CODE_TTL_MS = 60_000;

export async function issueAuthorizationCode(
  store: Store,
  fields: Omit<AuthorizationCodeDoc, '_id' | 'createdAt' | 'expiresAt'>,
): Promise<string> {
  const code = newSecret();
  const now = new Date();
  await store.authorizationCodes.insertOne({
    ...fields,
    _id: hashSecret(code),
    createdAt: now,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS),
  });
  return code;
}

export type ConsumeResult = { status: 'ok'; code: AuthorizationCodeDoc } | { status: 'invalid' } | { status: 'reused'; code: AuthorizationCodeDoc };

/** Uses the code, once. A second use is reported with the first use's grant so it can be revoked. */
export async function consumeAuthorizationCode(store: Store, code: string): Promise<ConsumeResult> {
  const id = hashSecret(code);
  const doc = await store.authorizationCodes.findOne({ _id: id });
  if (!doc) return { status: 'invalid' };
  // The guard outlives the code so that a late second use is still recognised as reuse.
  if (!(await claimOnce(store, `code:${id}`, AUTHORIZATION_CODE_TTL_MS + 10 * 60_000))) return { status: 'reused', code: doc };
  return doc.expiresAt > new Date() ? { status: 'ok', code: doc } : { status: 'invalid' };
}
