// Team invitations: one pending invitation per team and reference whatever its
// spelling, when one is void, and what the team's managers and the invitee see
// of it (the invitee never sees what it was sent to).
import {
  INVITATION_TTL_MS,
  InvitationId,
  invitationJson,
  invitationSlot,
  isLive,
  receivedInvitationJson,
  type TeamInvitationDoc,
} from '../../../lib/model/team-invitations.js';
import type { TeamDoc } from '../../../lib/model/teams.js';

const created = new Date('2025-01-01T00:00:00Z');
const invitation: TeamInvitationDoc = {
  _id: 'inv-1',
  slot: 't1:ada@example.com',
  teamId: 't1',
  reference: 'Ada@Example.com',
  userId: 'u1',
  role: 'admin',
  groups: ['ops'],
  invitedBy: 'u0',
  createdAt: created,
  expiresAt: new Date(created.getTime() + INVITATION_TTL_MS),
};

describe('invitations', () => {
  it('last seven days', () => {
    expect(INVITATION_TTL_MS).toBe(7 * 24 * 3600_000);
    expect(isLive(invitation, new Date(invitation.expiresAt.getTime() - 1))).toBe(true);
    expect(isLive(invitation, invitation.expiresAt)).toBe(false);
  });

  it('hold one slot per team and reference, whatever its case and surrounding spaces', () => {
    expect(invitationSlot('t1', '  Ada@Example.COM ')).toBe('t1:ada@example.com');
    expect(invitationSlot('t1', 'ada')).not.toBe(invitationSlot('t2', 'ada'));
  });

  it('have ids safe in a URL', () => {
    expect(InvitationId.safeParse('AbC_-09').success).toBe(true);
    for (const id of ['', 'a/b', 'a b', 'x'.repeat(65), '../x']) expect([id, InvitationId.safeParse(id).success]).toEqual([id, false]);
  });
});

describe('how an invitation is shown', () => {
  it('shows the team’s managers the reference as typed', () => {
    expect(invitationJson(invitation)).toEqual({
      id: 'inv-1',
      user: 'Ada@Example.com',
      role: 'admin',
      groups: ['ops'],
      invited_by: 'u0',
      created_at: '2025-01-01T00:00:00.000Z',
      expires_at: '2025-01-08T00:00:00.000Z',
    });
  });

  it('shows the invitee the team by name, never the reference or the account it resolved to', () => {
    const team = { _id: 't1', name: 'Core', slug: 'core' } as TeamDoc;
    const json = receivedInvitationJson(invitation, team);
    expect(json).toEqual({
      id: 'inv-1',
      team: { id: 't1', name: 'Core', slug: 'core' },
      role: 'admin',
      groups: ['ops'],
      invited_by: 'u0',
      expires_at: '2025-01-08T00:00:00.000Z',
    });
    expect(JSON.stringify(json)).not.toMatch(/Ada@Example\.com|"u1"/i);
  });
});
