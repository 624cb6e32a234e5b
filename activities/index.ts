// The activities the worker registers: all I/O of Keyflow's workflows.
import type { Store } from '../store/db.js';
import { createHousekeepingActivities } from './housekeeping.js';
import { createRefreshFamilyActivities } from './refresh-family.js';

export interface ActivityDeps {
  store: Store;
}

export function createActivities({ store }: ActivityDeps) {
  return {
    ...createHousekeepingActivities(store),
    ...createRefreshFamilyActivities(store),
  };
}
