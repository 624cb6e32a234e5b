// How many users, apps and teams the instance has: the admin console's overview.
import type { Store } from './db.js';

export interface SiteCounts {
  users: number;
  apps: number;
  teams: number;
}

export async function siteCounts(store: Store): Promise<SiteCounts> {
  const [users, apps, teams] = await Promise.all([store.users.countDocuments({}), store.clients.countDocuments({}), store.teams.countDocuments({})]);
  return { users, apps, teams };
}
