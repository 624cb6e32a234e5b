// WebAuthn credentials (passkeys) of users.
import type { Store } from './db.js';

export interface PasskeyDoc {
  _id: string; // credential id, base64url
  userId: string;
  publicKey: string; // COSE public key, base64url
  counter: number;
  transports: string[];
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export function listPasskeys(store: Store, userId: string): Promise<PasskeyDoc[]> {
  return store.passkeys.find({ userId }, { sort: { createdAt: 1 } }).toArray();
}
