// Backup codes: 10 single-use codes shown once. Stored as HMAC-SHA256 under a
// key derived from the KEK, so a database dump alone cannot brute-force them.
import { createHmac, hkdfSync, randomInt } from 'node:crypto';
import type { Kek } from './kek.js';

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // no 0/O, 1/I
export const BACKUP_CODE_COUNT = 10;

/** A code like `7KQ2M-XW9PA`: 10 characters, 50 bits. */
function newCode(): string {
  const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

export function generateBackupCodes(): string[] {
  return Array.from({ length: BACKUP_CODE_COUNT }, newCode);
}

/** Canonical form of what a user typed: case, spaces and the dash do not matter. */
export function normalizeBackupCode(input: string): string | null {
  const compact = input.toUpperCase().replace(/[\s-]/g, '');
  if (compact.length !== 10 || [...compact].some((c) => !ALPHABET.includes(c))) return null;
  return `${compact.slice(0, 5)}-${compact.slice(5)}`;
}

export function hashBackupCode(kek: Kek, code: string): string {
  const key = Buffer.from(hkdfSync('sha256', kek.key, Buffer.alloc(0), 'keyflow backup codes', 32));
  return createHmac('sha256', key).update(code).digest('base64url');
}
