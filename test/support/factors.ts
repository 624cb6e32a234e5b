// Second factors for test users, written straight into the store as enrollment
// would leave them: an authenticator app (the TOTP secret sealed with the KEK)
// and ten fresh backup codes (hashed). Returns the backup codes in clear.
import type { Kek } from '../../lib/security/kek.js';
import { seal } from '../../lib/security/kek.js';
import { generateBackupCodes, hashBackupCode } from '../../lib/security/backup-codes.js';
import type { Store } from '../../lib/store/db.js';

export async function enrollFactors(store: Store, kek: Kek, userId: string, totpSecret: string): Promise<string[]> {
  const backupCodes = generateBackupCodes();
  await store.users.updateOne(
    { _id: userId },
    {
      $set: {
        totp: { secret: seal(kek, Buffer.from(totpSecret), `totp:${userId}`), lastTimeStep: null, enabledAt: new Date() },
        backupCodes: backupCodes.map((c) => hashBackupCode(kek, c)),
      },
    },
  );
  return backupCodes;
}
