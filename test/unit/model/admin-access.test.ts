// Which token scopes reach which administration request: an admin's own
// `admin:*` scopes or a third-party app's `site:*` ones, never a scope of
// another kind, and invitations and the audit trail by admin scopes only.
import { ADMIN_SCOPES } from '../../../lib/model/admin-access.js';
import { isSiteScope, SCOPES } from '../../../lib/model/scopes.js';

describe('ADMIN_SCOPES', () => {
  it('lets every request be made with an admin scope, and every one but invitations and the audit trail with a site scope', () => {
    for (const [need, scopes] of Object.entries(ADMIN_SCOPES)) {
      expect([need, scopes.filter((s) => SCOPES[s]?.adminOnly).length]).toEqual([need, 1]);
      expect([need, scopes.filter(isSiteScope).length]).toEqual([need, need.startsWith('invites:') || need === 'audit:read' ? 0 : 1]);
      // Every scope named is catalogued, and nothing else reaches the request.
      expect([need, scopes.filter((s) => !SCOPES[s]?.adminOnly && !isSiteScope(s))]).toEqual([need, []]);
    }
  });

  it('reads with read scopes only, and changes with write (or revoke) scopes only', () => {
    for (const [need, scopes] of Object.entries(ADMIN_SCOPES)) {
      if (need.endsWith(':read')) expect([need, scopes.every((s) => s.endsWith(':read'))]).toEqual([need, true]);
      else expect([need, scopes.some((s) => s.endsWith(':read'))]).toEqual([need, false]);
    }
  });

  it('treats apps as configuration, and token revocation as a change of users', () => {
    expect(ADMIN_SCOPES['apps:write']).toEqual(['admin:config:write', 'site:config:write']);
    expect(ADMIN_SCOPES['tokens:revoke']).toEqual(['admin:users:write', 'site:token:revoke']);
  });
});
