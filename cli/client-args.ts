// What `clients` commands read from their command line about a client: which
// client (by client_id) and its redirect URIs (by kind of match), for
// clients.ts (list, show, create) and apps.ts (the changes) alike.
import type { ClientDoc } from '../lib/model/clients.js';
import type { RedirectUriEntry } from '../lib/model/redirect-uri.js';
import { NotFoundError } from '../lib/model/errors.js';
import { findClient } from '../lib/store/clients.js';
import type { Store } from '../lib/store/db.js';

/** The client a command names; an unknown client id is not found (exit 1). */
export async function clientById(store: Store, clientId: string): Promise<ClientDoc> {
  const client = clientId.length <= 200 ? await findClient(store, clientId) : null;
  if (!client) throw new NotFoundError(`no app with client_id ${clientId}`);
  return client;
}

/** The options that set a client's redirect URIs (commands.ts): exact, wildcard, regex. */
const REDIRECT_URI_OPTIONS = ['redirect-uri', 'redirect-uri-wildcard', 'redirect-uri-regex'];

/** The redirect URIs the options name, or undefined when none is named. */
export function redirectUrisOf(values: Record<string, unknown>): RedirectUriEntry[] | undefined {
  const list = (key: string) => (values[key] as string[] | undefined) ?? [];
  if (REDIRECT_URI_OPTIONS.every((key) => values[key] === undefined)) return undefined;
  return [
    ...list('redirect-uri').map((value) => ({ type: 'equals' as const, value })),
    ...list('redirect-uri-wildcard').map((value) => ({ type: 'wildcard' as const, value })),
    ...list('redirect-uri-regex').map((value) => ({ type: 'regex' as const, value })),
  ];
}
