// What a test can observe of how the store looks documents up: the filters of
// the commands sent on some collections (FerretDB v1 reads a whole collection
// for any filter but a lone `_id`).
import type { CommandStartedEvent } from 'mongodb';
import type { Store } from '../../lib/store/db.js';

/** The filters of the commands on `collections` (find, findAndModify, update, delete) that `run` sends through `store`. */
export async function commandFilters(store: Store, collections: string[], run: () => Promise<unknown>): Promise<unknown[]> {
  const filters: unknown[] = [];
  const seen = (e: CommandStartedEvent) => {
    if (!collections.includes(String(e.command[e.commandName]))) return;
    const c = e.command as Record<string, unknown>;
    const filter = c.filter ?? c.query ?? (c.deletes as { q: unknown }[] | undefined)?.[0]?.q ?? (c.updates as { q: unknown }[] | undefined)?.[0]?.q;
    if (filter !== undefined) filters.push(filter);
  };
  store.client.on('commandStarted', seen);
  try {
    await run();
  } finally {
    store.client.off('commandStarted', seen);
  }
  return filters;
}
