// Authorization codes in MongoDB (the model: domain/authorization-code.ts),
// used once through store/single-use.ts.
import { AUTHORIZATION_CODE_TTL_MS, CODE_REUSE_MEMORY_MS, type AuthorizationCodeDoc } from '../domain/authorization-code.js';
import { hashSecret, newSecret } from '../security/secrets.js';
import type { Store } from './db.js';
import { claimOnce } from './single-use.js';

export async function issueAuthorizationCode(store: Store, fields: Omit<AuthorizationCodeDoc, '_id' | 'createdAt' | 'expiresAt'>): Promise<string> {
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
  if (!(await claimOnce(store, `code:${id}`, AUTHORIZATION_CODE_TTL_MS + CODE_REUSE_MEMORY_MS))) return { status: 'reused', code: doc };
  return doc.expiresAt > new Date() ? { status: 'ok', code: doc } : { status: 'invalid' };
}
