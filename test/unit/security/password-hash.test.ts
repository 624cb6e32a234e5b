// Password hashes carry their scrypt cost: the process's cost (set at start
// from PASSWORD_HASH_COST) applies to new hashes and to the hash an unknown
// account is checked against, and a verified hash below it asks to be replaced.
import {
  DEFAULT_PASSWORD_HASH_COST,
  hashPassword,
  needsRehash,
  passwordHashParams,
  setPasswordHashCost,
  unknownAccountHash,
  verifyPassword,
} from '../../../lib/security/password.js';

const PASSWORD = 'correct horse battery staple';

afterEach(() => setPasswordHashCost(DEFAULT_PASSWORD_HASH_COST));

describe('the password hash cost', () => {
  it('is scrypt N = 32768 (32 MiB) unless the process sets another', async () => {
    expect(passwordHashParams()).toBe('scrypt N=32768 r=8 p=1 (32 MiB)');
    expect(await hashPassword(PASSWORD)).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
  });

  it('applies to new hashes, and a hash made at another cost still verifies', async () => {
    setPasswordHashCost(10);
    const cheap = await hashPassword(PASSWORD);
    expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
    setPasswordHashCost(11);
    expect(passwordHashParams()).toBe('scrypt N=2048 r=8 p=1 (2 MiB)');
    expect(await verifyPassword(PASSWORD, cheap)).toBe(true);
    expect(await verifyPassword('wrong horse battery staple', cheap)).toBe(false);
  });

  it('asks for a new hash only when a stored one is cheaper than the current cost', async () => {
    setPasswordHashCost(11);
    const stored = await hashPassword(PASSWORD);
    expect(needsRehash(stored)).toBe(false);
    setPasswordHashCost(12);
    expect(needsRehash(stored)).toBe(true);
    setPasswordHashCost(10);
    expect(needsRehash(stored)).toBe(false);
  });

  it("checks an unknown account's password at the current cost, against a hash no password matches", async () => {
    setPasswordHashCost(11);
    expect(unknownAccountHash()).toMatch(/^scrypt\$2048\$8\$1\$/);
    expect(await verifyPassword('', unknownAccountHash())).toBe(false);
    expect(await verifyPassword(PASSWORD, unknownAccountHash())).toBe(false);
    setPasswordHashCost(DEFAULT_PASSWORD_HASH_COST);
    expect(unknownAccountHash()).toMatch(/^scrypt\$32768\$8\$1\$/);
  });
});
