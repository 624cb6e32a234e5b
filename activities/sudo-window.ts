// Activities of the SudoWindow workflow: the end of a window in its MongoDB
// projection (collection `sudo_windows`).
import type { SudoWindowState } from '../lib/model/sudo-window.js';
import type { Store } from '../lib/store/db.js';
import { recordSudoWindowEnded } from '../lib/store/sudo-windows.js';

export function createSudoWindowActivities(store: Store) {
  return {
    async endSudoWindow(input: { windowId: string; openingId: string; status: Exclude<SudoWindowState, 'active'> }): Promise<void> {
      await recordSudoWindowEnded(store, input);
    },
  };
}

export type SudoWindowActivities = ReturnType<typeof createSudoWindowActivities>;
