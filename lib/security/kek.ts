// The key-encryption key (KEK) that protects signing keys at rest, and the
// AES-256-GCM sealing done with it. The KEK comes from KEYFLOW_KEK or, for the
// embedded setup, from DATA_DIR/kek.key, generated once with mode 0600.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { decodeBase64urlStrict } from './base64url.js';

export interface Kek {
  key: Buffer;
  /** Short fingerprint stored beside each ciphertext, to name a KEK mismatch clearly. */
  id: string;
  source: 'env' | 'file';
}

export interface Sealed {
  alg: 'A256GCM';
  kekId: string;
  iv: string;
  tag: string;
  ct: string;
}

export class KekMismatchError extends Error {
  constructor(what: string) {
    super(`${what} was encrypted with a different key-encryption key: set KEYFLOW_KEK (or DATA_DIR/kek.key) to the key used when it was created`);
  }
}

const fingerprint = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 16);

export function kekFilePath(dataDir: string): string {
  return path.join(dataDir, 'kek.key');
}

/** The KEK from configuration, or the generated file (created on first use, race-safe between processes). */
export function loadKek(fromEnv: Buffer | undefined, dataDir: string): Kek {
  if (fromEnv) return { key: fromEnv, id: fingerprint(fromEnv), source: 'env' };
  const file = kekFilePath(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    // 'wx' fails if another process (api or worker) created it first; then we read theirs.
    fs.writeFileSync(file, randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return { key, id: fingerprint(key), source: 'file' };
}

/** AES-256-GCM with a fresh 96-bit IV; `aad` binds the ciphertext to its record (e.g. the key id). */
export function seal(kek: Kek, plaintext: Buffer, aad: string): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek.key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { alg: 'A256GCM', kekId: kek.id, iv: iv.toString('base64url'), tag: cipher.getAuthTag().toString('base64url'), ct: ct.toString('base64url') };
}

/**
 * The plaintext of `sealed`. Its parts are read in their canonical spelling
 * only (base64url.ts): a sealed value has exactly one spelling that opens, so
 * one that is single use by its spelling (an authorization code) cannot be
 * used again re-spelled.
 */
export function open(kek: Kek, sealed: Sealed, aad: string, what = 'a sealed value'): Buffer {
  if (sealed.kekId !== kek.id) throw new KekMismatchError(what);
  const altered = () => new Error(`${what} failed authentication: the stored ciphertext was altered`);
  const [iv, tag, ct] = [sealed.iv, sealed.tag, sealed.ct].map(decodeBase64urlStrict);
  // A GCM tag is 16 bytes: a shorter one would be checked on its prefix only.
  if (!iv || iv.length !== 12 || !tag || tag.length !== 16 || !ct) throw altered();
  const decipher = createDecipheriv('aes-256-gcm', kek.key, iv, { authTagLength: 16 });
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ct), decipher.final()]);
  } catch {
    throw altered();
  }
}
