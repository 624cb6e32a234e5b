// A stored passkey for tests that need a user to have one, without a WebAuthn
// ceremony (the browser tests do those with Chromium's virtual authenticator).
import type { PasskeyDoc } from '../../lib/model/passkeys.js';
import { newId } from '../../lib/security/secrets.js';
import { insertPasskey } from '../../lib/store/passkeys.js';
import type { Store } from '../../lib/store/db.js';

/** A passkey document of `userId` (its public key is not a real one: it is never verified). */
export const passkeyDoc = (userId: string): PasskeyDoc => ({
  _id: `test-passkey-${newId()}`,
  userId,
  publicKey: 'AAAA',
  counter: 0,
  transports: [],
  name: 'Test key',
  createdAt: new Date(),
  lastUsedAt: null,
});

/** Gives the user a passkey through the store, as enrolment does. */
export async function addTestPasskey(store: Store, userId: string): Promise<PasskeyDoc> {
  const doc = passkeyDoc(userId);
  await insertPasskey(store, doc);
  return doc;
}
