// The collections whose documents expire, and which of them each housekeeping
// pass purges: every expiring collection is purged by exactly one pass.
import { EXPIRING_COLLECTIONS } from '../../../lib/model/expiring.js';
import { collectionsOfPass } from '../../../lib/model/housekeeping.js';

describe('housekeeping passes', () => {
  it('leave refresh tokens to the daily pass and purge every other collection in the frequent one', () => {
    expect(collectionsOfPass('daily')).toEqual(['refresh_tokens']);
    expect(collectionsOfPass('frequent')).toEqual(EXPIRING_COLLECTIONS.filter((c) => c !== 'refresh_tokens'));
  });

  it('purge every collection, once, between them, and all of them in a run that names no pass', () => {
    expect([...collectionsOfPass('frequent'), ...collectionsOfPass('daily')].sort()).toEqual([...EXPIRING_COLLECTIONS].sort());
    expect(collectionsOfPass(undefined)).toEqual([...EXPIRING_COLLECTIONS]);
    expect(new Set(EXPIRING_COLLECTIONS).size).toBe(EXPIRING_COLLECTIONS.length);
  });
});
