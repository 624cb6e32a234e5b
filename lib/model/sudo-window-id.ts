// The id of a sudo window: its SudoWindow workflow's id and its projection's
// `_id` at once. Apart from lib/model/sudo-window.ts because it hashes with
// node:crypto, which the workflow bundle (importing that module) cannot load.
import { createHash } from 'node:crypto';
import type { SudoWindowKey } from './sudo-window.js';

/**
 * `sudo:<user>:<sid-hash-prefix>:<client>`: readable (user and client ids in
 * clear, as in the Temporal UI's search attributes) and bounded (the sid enters
 * as the first 16 base64url characters of its SHA-256).
 */
export function sudoWindowId({ userId, sid, clientId }: SudoWindowKey): string {
  const sidHash = createHash('sha256').update(sid).digest('base64url').slice(0, 16);
  return `sudo:${userId}:${sidHash}:${clientId}`;
}
