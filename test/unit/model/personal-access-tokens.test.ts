// Personal access tokens: which scopes a user may put on one, what a new
// token's fields must be, the token itself (shown once, stored as its hash),
// and when one is live. (Lifetime caps and access: domain-records.test.ts.)
import { hashSecret } from '../../../lib/security/secrets.js';
import {
  checkedNewToken,
  isLivePat,
  isPatCandidate,
  newPersonalAccessToken,
  PAT_PREFIX,
  patMaxDays,
  patScopesFor,
} from '../../../lib/model/personal-access-tokens.js';
import { SCOPES } from '../../../lib/model/scopes.js';

const DAY = 86_400_000;

describe('patScopesFor', () => {
  it('offers the catalogue without site scopes and offline_access, and admin scopes to admins only', () => {
    const user = patScopesFor('user');
    const admin = patScopesFor('admin');
    expect(user).toContain('profile:write');
    expect(user.filter((s) => s.startsWith('site:') || s.startsWith('admin:') || s === 'offline_access')).toEqual([]);
    expect(admin.filter((s) => !user.includes(s))).toEqual(Object.keys(SCOPES).filter((s) => s.startsWith('admin:')));
    expect(admin).not.toContain('site:user:read');
  });
});

describe('patMaxDays', () => {
  it('is the maximum lifetime in whole days, at least one', () => {
    expect(patMaxDays(90 * DAY)).toBe(90);
    expect(patMaxDays(90 * DAY - 1)).toBe(89);
    expect(patMaxDays(1000)).toBe(1);
  });
});

describe('checkedNewToken', () => {
  const fields = { name: ' ci ', scope: ['profile:write'], expiresInDays: 30 };

  it('accepts a named token with allowed scopes and a lifetime within the maximum', () => {
    expect(checkedNewToken('user', 90, fields)).toEqual({ ok: true, input: { name: 'ci', scope: ['profile:write'], expiresInDays: 30 } });
    expect(checkedNewToken('admin', 90, { ...fields, scope: ['admin:users:read'] }).ok).toBe(true);
  });

  it.each<[string, Partial<typeof fields> | Record<string, unknown>, string[]]>([
    ['no name', { name: '  ' }, ['name: is required']],
    ['a long name', { name: 'n'.repeat(101) }, ['name: must be at most 100 characters']],
    ['no scope', { scope: [] }, ['scope: choose at least one scope']],
    ['no lifetime', { expiresInDays: undefined }, ['expiresInDays: is required: 1 to 90 days']],
    ['a lifetime over the maximum', { expiresInDays: 91 }, ['expiresInDays: must be at most 90 days']],
    ['no lifetime at all', { expiresInDays: 0 }, ['expiresInDays: must be at least 1 day']],
    ['a fraction of a day', { expiresInDays: 1.5 }, ['expiresInDays: must be a whole number of days']],
    ['an admin scope for a user', { scope: ['profile:write', 'admin:users:read'] }, ['scope: not available: admin:users:read']],
    ['site scopes and offline_access', { scope: ['site:user:read', 'offline_access'] }, ['scope: not available: site:user:read offline_access']],
    ['an unknown scope and no name', { name: '', scope: ['bogus'] }, ['name: is required', 'scope: not available: bogus']],
  ])('refuses %s', (_name, change, problems) => {
    expect(checkedNewToken('user', 90, { ...fields, ...change })).toEqual({ ok: false, problems });
  });
});

describe('newPersonalAccessToken', () => {
  it('makes a kfpat_ token stored only as its hash, its scopes once each, expiring after the days given', () => {
    const now = new Date('2025-01-01T00:00:00Z');
    const { token, doc } = newPersonalAccessToken('u1', { name: 'ci', scope: ['profile:write', 'profile:write', 'apps:read'], expiresInDays: 7 }, now);
    expect(token).toMatch(/^kfpat_[A-Za-z0-9_-]{43}$/);
    expect(doc).toEqual({
      _id: hashSecret(token),
      id: expect.any(String),
      userId: 'u1',
      name: 'ci',
      scope: ['profile:write', 'apps:read'],
      createdAt: now,
      expiresAt: new Date(now.getTime() + 7 * DAY),
    });
    expect(JSON.stringify(doc)).not.toContain(token);
  });
});

describe('isPatCandidate and isLivePat', () => {
  it('looks up only strings that can be tokens', () => {
    expect(isPatCandidate(`${PAT_PREFIX}abc`)).toBe(true);
    expect(isPatCandidate('eyJhbGciOi.x.y')).toBe(false);
    expect(isPatCandidate(`${PAT_PREFIX}${'a'.repeat(200)}`)).toBe(false);
  });

  it('is live until its expiry; one stored without expiry until the cap is applied', () => {
    const expiresAt = new Date('2025-01-01T00:00:00Z');
    expect(isLivePat({ expiresAt }, expiresAt.getTime() - 1)).toBe(true);
    expect(isLivePat({ expiresAt }, expiresAt.getTime())).toBe(false);
    expect(isLivePat({ expiresAt: null })).toBe(true);
  });
});
