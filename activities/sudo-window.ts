// Activities of the SudoWindow workflow: the end of a window in its MongoDB
// projection (collection `sudo_windows`), in the database the api named.
import type { Store } from '../lib/store/db.js';
import { recordSudoWindowEnded } from '../lib/store/sudo-windows.js';

export function createSudoWindowActivities(store: Store) {
  return {
    async endSudoWindow(input: { windowId: string; openingId: string; status: 'ended' | 'revoked'; database?: string }): Promise<void> {
      await recordSudoWindowEnded(store, input);
    },
  };
}

export type SudoWindowActivities = ReturnType<typeof createSudoWindowActivities>;
