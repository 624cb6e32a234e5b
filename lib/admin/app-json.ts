// An app as a site admin sees it, for the admin API and the operator CLI
// alike: the app API's fields (appJson) and its owner, null for an app an
// operator created; after a change, how many grants deactivation revoked.
import { appJson } from '../model/client-metadata.js';
import type { ClientDoc } from '../model/clients.js';
import type { AppChange } from './app-changes.js';

export const adminAppJson = (c: ClientDoc) => ({ ...appJson(c), owner_user_id: c.ownerUserId ?? null });

/** The answer to a site admin's change to an app (`PATCH …/admin/apps/{id}`, `keyflow apps verify|deactivate|reactivate`). */
export const appChangeJson = ({ client, grantsRevoked }: AppChange) => ({ ...adminAppJson(client), grants_revoked: grantsRevoked });
