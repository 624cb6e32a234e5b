// What this process already wrote, per store, so that writing it again costs
// no round trip (a session's list entries). Bounded: past the limit the oldest
// entry is forgotten, which only costs that round trip again.
import type { Store } from './db.js';

export interface ProcessMemo<V> {
  get(store: Store, key: string): V | undefined;
  set(store: Store, key: string, value: V): void;
}

export function processMemo<V>(limit: number): ProcessMemo<V> {
  const byStore = new WeakMap<Store, Map<string, V>>();
  const of = (store: Store) => {
    let memo = byStore.get(store);
    if (!memo) byStore.set(store, (memo = new Map<string, V>()));
    return memo;
  };
  return {
    get: (store, key) => of(store).get(key),
    set(store, key, value) {
      const memo = of(store);
      memo.delete(key); // newest last
      memo.set(key, value);
      if (memo.size > limit) memo.delete(memo.keys().next().value!);
    },
  };
}
