// The single-use primitive every "consumed once" rule relies on, against the
// real FerretDB: concurrent claims of one key have exactly one winner.
import { openStore, type Store } from '../../../lib/store/db.js';
import { claimOnce } from '../../../lib/store/single-use.js';
import { testConfig } from '../../support/harness.js';

let store: Store;
beforeAll(() => {
  store = openStore(testConfig());
});
afterAll(() => store.close());

describe('claimOnce', () => {
  it('has exactly one winner among concurrent claims, every time', async () => {
    for (let round = 0; round < 20; round++) {
      const key = `race:${Date.now()}:${round}`;
      const results = await Promise.all(Array.from({ length: 5 }, () => claimOnce(store, key, 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
    }
  });

  it('can be claimed again once the guard has expired', async () => {
    const key = `expiring:${Date.now()}`;
    expect(await claimOnce(store, key, 1)).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(await claimOnce(store, key, 60_000)).toBe(true);
    expect(await claimOnce(store, key, 60_000)).toBe(false);
  });
});
