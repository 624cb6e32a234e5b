// Many lookups or writes by `_id`, a few at a time: FerretDB v1 answers only a
// lone `_id` filter from an index (an `_id: {$in}` reads the whole collection),
// and hundreds of commands in flight at once leave SQLite queuing them all.
import pLimit from 'p-limit';

/** `each` over `items`, at most `size` in flight at once (p-limit); the results in order. */
export function inChunks<T, R>(items: readonly T[], size: number, each: (item: T) => Promise<R>): Promise<R[]> {
  const limit = pLimit(size);
  return Promise.all(items.map((item) => limit(() => each(item))));
}
