// Sign-up invitations: what an admin may give, how long an invitation lasts,
// its state, and what the admin API shows (never the token or its hash).
import {
  INVITE_DEFAULT_DAYS,
  INVITE_MAX_DAYS,
  INVITE_REFUSALS,
  inviteCreatedData,
  inviteJson,
  inviteLink,
  inviteState,
  looksLikeInviteToken,
  NewInviteInput,
  newInviteDoc,
} from '../../../lib/model/invites.js';
import { zodProblems } from '../../../lib/model/errors.js';

const NOW = new Date('2025-01-01T00:00:00Z');
const DAY = 86_400_000;
const admin = { type: 'user' as const, userId: 'admin-1' };
const problems = (body: unknown) => {
  const parsed = NewInviteInput.safeParse(body);
  return parsed.success ? [] : zodProblems(parsed.error.issues);
};

describe('NewInviteInput', () => {
  it('defaults to any email, the user role and seven days; keeps an email in lower case', () => {
    expect(NewInviteInput.parse({})).toEqual({ email: null, role: 'user', expires_in_days: INVITE_DEFAULT_DAYS });
    expect(INVITE_DEFAULT_DAYS).toBe(7);
    expect(NewInviteInput.parse({ email: 'Ada@Example.COM', role: 'admin', expires_in_days: INVITE_MAX_DAYS })).toEqual({
      email: 'ada@example.com',
      role: 'admin',
      expires_in_days: 90,
    });
  });

  it.each<[string, unknown, string]>([
    ['an address that is not one', { email: 'ada' }, 'email: must be an email address'],
    ['another role', { role: 'owner' }, 'role: must be user or admin'],
    ['days as text', { expires_in_days: '7' }, 'expires_in_days: must be a number'],
    ['a fraction of days', { expires_in_days: 1.5 }, 'expires_in_days: must be a whole number'],
    ['no days', { expires_in_days: 0 }, 'expires_in_days: must be at least 1'],
    ['more than 90 days', { expires_in_days: 91 }, 'expires_in_days: must be at most 90'],
    ['an unknown field', { token: 'x' }, 'Unrecognized key: "token"'],
  ])('refuses %s', (_name, body, problem) => {
    expect(problems(body)).toEqual([problem]);
  });
});

describe('an invitation', () => {
  const invite = newInviteDoc('i1', 'hash', NewInviteInput.parse({ email: 'ada@example.com', expires_in_days: 2 }), admin, NOW);

  it('lasts the days given and is pending until used, revoked or expired', () => {
    expect(invite).toMatchObject({ _id: 'i1', tokenHash: 'hash', email: 'ada@example.com', role: 'user', createdBy: admin, createdAt: NOW });
    expect(invite.expiresAt).toEqual(new Date(NOW.getTime() + 2 * DAY));
    expect(inviteState(invite, NOW)).toBe('pending');
    expect(inviteState(invite, new Date(invite.expiresAt.getTime() - 1))).toBe('pending');
    expect(inviteState(invite, invite.expiresAt)).toBe('expired');
    expect(inviteState({ ...invite, revokedAt: NOW }, NOW)).toBe('revoked');
    // Used wins over revoked and expired: what happened first is what it is.
    expect(inviteState({ ...invite, usedAt: NOW, usedBy: 'u2', revokedAt: NOW }, invite.expiresAt)).toBe('used');
  });

  it('is refused in plain words that say nothing about who made it', () => {
    for (const words of Object.values(INVITE_REFUSALS)) expect(words).not.toMatch(/admin|ada@/i);
    expect(Object.keys(INVITE_REFUSALS).sort()).toEqual(['expired', 'revoked', 'unknown', 'used']);
  });

  it('is shown to admins and in events without its token or hash', () => {
    const json = inviteJson(invite, NOW);
    expect(json).toEqual({
      id: 'i1',
      email: 'ada@example.com',
      role: 'user',
      state: 'pending',
      expires_at: '2025-01-03T00:00:00.000Z',
      created_at: '2025-01-01T00:00:00.000Z',
      created_by: { type: 'user', user_id: 'admin-1' },
      used_by: null,
      used_at: null,
      revoked_at: null,
    });
    expect(inviteCreatedData(invite)).toEqual({ invite_id: 'i1', email: 'ada@example.com', role: 'user', expires_at: '2025-01-03T00:00:00.000Z' });
    expect(JSON.stringify([json, inviteCreatedData(invite)])).not.toContain('hash');
  });
});

describe('invitation links', () => {
  it('carry the token, escaped, and only a token of the issued shape is looked up', () => {
    const token = 'A'.repeat(42) + '_';
    expect(inviteLink('https://id.example', token)).toBe(`https://id.example/signup?invite=${token}`);
    expect(inviteLink('https://id.example', 'a b&c')).toBe('https://id.example/signup?invite=a%20b%26c');
    expect(looksLikeInviteToken(token)).toBe(true);
    for (const t of ['A'.repeat(42), 'A'.repeat(44), `${'A'.repeat(42)}=`, `${'A'.repeat(42)}+`, 42, undefined]) expect(looksLikeInviteToken(t)).toBe(false);
  });
});
