// A user's GPG public keys: what Keyflow keeps of each (read from the armored
// block by lib/accounts/gpg-public-key.ts) and how the API and the claims show it. A key
// is public, so two users may add the same one; each user adds a key once.
import { z } from 'zod';
import { newId } from '../security/secrets.js';
import { currentDate } from '../runtime/clock.js';

/** The largest armored block accepted (characters): a key with many signatures stays well below. */
export const MAX_ARMORED_KEY_LENGTH = 64 * 1024;

/** The most keys one user may have; a page lists them all. */
export const MAX_GPG_KEYS_PER_USER = 100;

export interface GpgSubkey {
  /** Uppercase hex: 40 characters (v4 key) or 64 (v6 key). */
  fingerprint: string;
  /** Uppercase hex, 16 characters. */
  keyId: string;
  algorithm: string;
  createdAt: Date;
  /** null: never expires. */
  expiresAt: Date | null;
}

/** What the armored block says about a key, before it belongs to anyone. */
export interface ParsedGpgKey {
  fingerprint: string;
  keyId: string;
  /** The primary user ID, e.g. `Ann <ann@example.com>`. */
  name: string;
  algorithm: string;
  subkeys: GpgSubkey[];
  createdAt: Date;
  expiresAt: Date | null;
  /** The public key, re-armored from what was read (no other packets, no comments). */
  armored: string;
}

export interface GpgKeyDoc extends ParsedGpgKey {
  _id: string;
  userId: string;
  addedAt: Date;
}

export function newGpgKey(userId: string, parsed: ParsedGpgKey, now = currentDate()): GpgKeyDoc {
  return { _id: newId(), userId, addedAt: now, ...parsed };
}

/** A key's id as it appears in a path: the ids newGpgKey makes. */
export const GpgKeyId = z.string().regex(/^[0-9a-f-]{36}$/, 'must be a GPG key id');

/** The body of POST /api/oauth/me/gpg_keys (and the page's form). */
export const NewGpgKeyInput = z.object({
  armored_public_key: z
    .string({ error: 'must be a string: the ASCII-armored public key' })
    .max(MAX_ARMORED_KEY_LENGTH, `must be at most ${MAX_ARMORED_KEY_LENGTH / 1024} KiB`)
    .trim()
    .min(1, 'must not be empty'),
});

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A key as the API shows it (without the armored block). */
export function gpgKeyJson(k: GpgKeyDoc) {
  return {
    id: k._id,
    fingerprint: k.fingerprint,
    key_id: k.keyId,
    name: k.name,
    algorithm: k.algorithm,
    subkeys: k.subkeys.map((s) => ({
      fingerprint: s.fingerprint,
      key_id: s.keyId,
      algorithm: s.algorithm,
      created_at: s.createdAt.toISOString(),
      expires_at: iso(s.expiresAt),
    })),
    created_at: k.createdAt.toISOString(),
    expires_at: iso(k.expiresAt),
    added_at: k.addedAt.toISOString(),
  };
}

/** A key as the opt-in `gpg_keys` claim shows it. */
export const gpgKeyClaim = (k: GpgKeyDoc) => ({ id: k._id, fingerprint: k.fingerprint, key_id: k.keyId, name: k.name });
