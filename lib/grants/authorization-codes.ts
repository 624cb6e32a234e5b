// Authorization codes (the model: model/authorization-code.ts), used once
// through store/single-use.ts. A code carries its own record, sealed
// (AES-256-GCM, under a key derived from the KEK for codes alone): issuing one
// writes nothing, and redeeming one reads nothing but its single-use claim,
// which also remembers a used code long enough to recognise its reuse. Nothing
// about the authorization is readable from the code, and a code altered by a
// single bit fails to open.
import { hkdfSync } from 'node:crypto';
import { AUTHORIZATION_CODE_TTL_MS, CODE_REUSE_MEMORY_MS, type AuthorizationCodeDoc } from '../model/authorization-code.js';
import { open, seal, type Kek } from '../security/kek.js';
import { hashSecret } from '../security/secrets.js';
import type { Store } from '../store/db.js';
import { claimOnce } from '../store/single-use.js';
import { currentDate, currentTimeMs } from '../runtime/clock.js';

/** The prefix of a sealed code, and the version of its format. */
const SEALED = 'kfc1.';
const AAD = 'keyflow authorization code v1';

/** What issuing and redeeming a code need: the store for the single-use claim, the KEK for the seal. */
export interface CodeDeps {
  store: Store;
  kek: Kek;
}

const codeKeys = new WeakMap<Kek, Kek>();

/** The sealing key of codes: derived from the KEK (HKDF-SHA-256), so no other sealed value shares its key. */
function codeKey(kek: Kek): Kek {
  let key = codeKeys.get(kek);
  if (!key) {
    key = { ...kek, key: Buffer.from(hkdfSync('sha256', kek.key, Buffer.alloc(0), 'keyflow authorization codes', 32)) };
    codeKeys.set(kek, key);
  }
  return key;
}

type CodeFields = Omit<AuthorizationCodeDoc, '_id' | 'createdAt' | 'expiresAt'>;

export function issueAuthorizationCode(deps: CodeDeps, fields: CodeFields): string {
  const now = currentTimeMs();
  const record = { ...fields, authTime: fields.authTime.getTime(), createdAt: now, expiresAt: now + AUTHORIZATION_CODE_TTL_MS };
  const sealed = seal(codeKey(deps.kek), Buffer.from(JSON.stringify(record), 'utf8'), AAD);
  return `${SEALED}${sealed.iv}.${sealed.ct}.${sealed.tag}`;
}

/** The record a sealed code carries; null for anything that is not a code this KEK sealed. */
function openCode(kek: Kek, code: string): Omit<AuthorizationCodeDoc, '_id'> | null {
  const [iv, ct, tag, extra] = code.slice(SEALED.length).split('.');
  if (!iv || !ct || !tag || extra !== undefined) return null;
  const key = codeKey(kek);
  let plain: Buffer;
  try {
    plain = open(key, { alg: 'A256GCM', kekId: key.id, iv, ct, tag }, AAD);
  } catch {
    return null;
  }
  const r = JSON.parse(plain.toString('utf8')) as CodeFields & { authTime: number; createdAt: number; expiresAt: number };
  return { ...r, authTime: new Date(r.authTime), createdAt: new Date(r.createdAt), expiresAt: new Date(r.expiresAt) };
}

/**
 * The record `code` stands for, without using it up: null for anything that is
 * not a code Keyflow issued. A sealed code opens from its one canonical
 * spelling only (security/kek.ts), so its hash names it whatever way it was
 * sent, and its single-use claim (useAuthorizationCode) is one per code.
 */
export function readAuthorizationCode(deps: CodeDeps, code: string): AuthorizationCodeDoc | null {
  const record = code.startsWith(SEALED) ? openCode(deps.kek, code) : null;
  return record ? { ...record, _id: hashSecret(code) } : null;
}

export type CodeUse = 'ok' | 'reused' | 'expired';

/**
 * Uses a code read by readAuthorizationCode, once: the caller has checked
 * that the request presenting it would succeed (its client, redirect URI,
 * PKCE verifier, DPoP key), so that nobody else holding the code can use it
 * up. A second use is `reused`, remembered past the code's expiry so that
 * the grant the first use opened can be revoked.
 */
export async function useAuthorizationCode(deps: CodeDeps, code: AuthorizationCodeDoc): Promise<CodeUse> {
  if (!(await claimOnce(deps.store, `code:${code._id}`, AUTHORIZATION_CODE_TTL_MS + CODE_REUSE_MEMORY_MS))) return 'reused';
  return code.expiresAt > currentDate() ? 'ok' : 'expired';
}
