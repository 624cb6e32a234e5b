// User codes of the device flow (RFC 8628 §6.1): typed by a person on a second
// screen, so short, unambiguous and forgiving. 8 characters from 20 consonants
// (no vowels: no words; no 0/O, 1/I/L lookalikes) give 20^8 ≈ 2.6·10^10 codes,
// ~34 bits; brute force is stopped by the short lifetime and the rate limit of
// the /device page. Not imported by workflows (node:crypto).
import { randomInt } from 'node:crypto';

export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/** A new normalized user code (no separator), uniformly random. */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** As shown to people: `XXXX-XXXX`. */
export function formatUserCode(normalized: string): string {
  return `${normalized.slice(0, 4)}-${normalized.slice(4)}`;
}

/** What a person typed, normalized (case, dashes and spaces ignored); null when it cannot be a user code. */
export function normalizeUserCode(input: unknown): string | null {
  if (typeof input !== 'string' || input.length > 40) return null;
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== USER_CODE_LENGTH) return null;
  return [...code].every((c) => USER_CODE_ALPHABET.includes(c)) ? code : null;
}
