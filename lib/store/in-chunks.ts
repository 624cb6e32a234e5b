// Many lookups or writes by `_id`, a few at a time: FerretDB v1 answers only a
// lone `_id` filter from an index (an `_id: {$in}` reads the whole collection),
// and hundreds of commands in flight at once leave SQLite queuing them all.

/** `each` over `items`, at most `size` in flight at once; the results in order. */
export async function inChunks<T, R>(items: readonly T[], size: number, each: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let k = 0; k < items.length; k += size) results.push(...(await Promise.all(items.slice(k, k + size).map(each))));
  return results;
}
