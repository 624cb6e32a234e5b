// Password hashing with scrypt (memory-hard, node:crypto). Stored format:
// scrypt$N$r$p$salt$hash (base64url): each hash carries its parameters, so the
// cost can be raised later without invalidating existing hashes, and a hash
// below the current cost is replaced at its owner's next sign-in.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt's cost as log2 N when nothing sets it: N = 32768, 32 MiB a hash. */
export const DEFAULT_PASSWORD_HASH_COST = 15;
const BLOCK_SIZE = 8;
const KEY_LENGTH = 32;

// The process's cost (PASSWORD_HASH_COST), set once at start by the api and the
// CLI from their configuration; the same for every hash the process makes.
let cost = DEFAULT_PASSWORD_HASH_COST;

/** At process start: the cost new hashes use, as log2 N (the configuration has checked its range). */
export function setPasswordHashCost(logN: number): void {
  cost = logN;
}

const currentParams = () => ({ N: 2 ** cost, r: BLOCK_SIZE, p: 1 });

/** The parameters new hashes use, as the benchmark reports them: cost N, block size r, parallelism p and the memory that takes. */
export function passwordHashParams(): string {
  const { N, r, p } = currentParams();
  return `scrypt N=${N} r=${r} p=${p} (${(128 * N * r) / 2 ** 20} MiB)`;
}

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem: 128 * options.N! * options.r! * 2 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const params = currentParams();
  const hash = await scrypt(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Whether a stored hash (already verified) is cheaper than the current cost: its owner's next sign-in stores a new one. */
export function needsRehash(stored: string): boolean {
  const [, n, r] = stored.split('$');
  const params = currentParams();
  return Number(n) < params.N || Number(r) < params.r;
}

/**
 * A hash no password matches, at the current cost: an unknown account's
 * password is checked against it, so the answer takes as long as for an
 * account that exists and timing does not tell which emails have one.
 */
export function unknownAccountHash(): string {
  const { N, r, p } = currentParams();
  return `scrypt$${N}$${r}$${p}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
}

/** Length rules of a new password (the rest: security/password-policy.ts). */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;
