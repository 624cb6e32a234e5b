// What a test server received, in order: each arrival is taken once, by the
// next `next()` that waits for it or later; a wait ends with an error after
// its time is up, so a missing request fails the test instead of hanging it.
export interface Arrivals<T> {
  /** Records an arrival (hands it to the oldest waiter, if any). */
  push(item: T): void;
  /** The next arrival not yet taken; rejects with `what` after `timeoutMs`. */
  next(timeoutMs: number, what: string): Promise<T>;
}

export function arrivals<T>(): Arrivals<T> {
  const items: T[] = [];
  const waiters: ((item: T) => void)[] = [];
  return {
    push(item) {
      const waiter = waiters.shift();
      if (waiter) waiter(item);
      else items.push(item);
    },
    next(timeoutMs, what) {
      const item = items.shift();
      if (item !== undefined) return Promise.resolve(item);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`${what} within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = (arrived: T) => {
          clearTimeout(timer);
          resolve(arrived);
        };
        waiters.push(waiter);
      });
    },
  };
}
