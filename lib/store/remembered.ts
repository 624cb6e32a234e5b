// Lookups the hot paths repeat (a client, a user's status) remembered briefly
// per process: each answer is kept `ttlMs` on the api's clock, so a change
// reaches every process within that time. At most 10,000 keys: past that the
// memory starts over.
import { currentTimeMs } from '../runtime/clock.js';

const MAX_KEYS = 10_000;

/** `load` by key, each answer kept `ttlMs` unless `keep` refuses it (then asked again next time). */
export function remembered<T>(ttlMs: number, load: (key: string) => Promise<T>, keep: (value: T) => boolean = () => true): (key: string) => Promise<T> {
  const memory = new Map<string, { value: T; until: number }>();
  return async (key) => {
    const hit = memory.get(key);
    if (hit && hit.until > currentTimeMs()) return hit.value;
    const value = await load(key);
    if (keep(value)) {
      if (memory.size >= MAX_KEYS) memory.clear();
      memory.set(key, { value, until: currentTimeMs() + ttlMs });
    } else memory.delete(key);
    return value;
  };
}
