// Whether an authorization request may be granted now, must ask the user, or
// is refused: admin-only and site scopes, single-team scopes bound to the team
// picked at consent (or remembered from an earlier consent to exactly one
// team), and the scopes (and claims asked for one by one) consented before.
// Used right before a code is issued, which auditScopeGrants then records.
import type { PendingAuthorization } from '../model/pending-authorization.js';
import { catalogued, isSiteScope } from '../model/scopes.js';
import { claimsBeyondScopes } from '../model/claims-request.js';
import { bindTeamScopes, boundTeamGrants, previouslyBoundTeams, requestedTeamPermissions } from '../model/team-binding.js';
import type { UserDoc } from '../model/users.js';
import type { EventActor } from '../model/webhook-events.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { Store } from '../store/db.js';
import { findConsent } from '../store/consents.js';
import { findUserById } from '../store/users.js';
import { teamGrantRefusal } from './team-consent.js';

/** `audit`: the scope grants' audit records. */
export interface ConsentDecisionDeps {
  store: Store;
  audit: Pick<AuditTrail, 'record'>;
}

export type ConsentDecision = { kind: 'grant'; scope: string[] } | { kind: 'ask' } | { kind: 'refuse'; error: string; description: string };

export async function consentDecision(
  deps: ConsentDecisionDeps,
  request: PendingAuthorization,
  userId: string,
  known: UserDoc | null,
): Promise<ConsentDecision> {
  // Admin-only and site scopes are for admins: nobody else can consent to them.
  const site = request.scope.some(isSiteScope);
  if (site || request.scope.some((s) => catalogued(s)?.adminOnly)) {
    const user = known ?? (await findUserById(deps.store, userId));
    if (user?.role !== 'admin')
      return { kind: 'refuse', error: 'invalid_scope', description: `${site ? 'site' : 'admin'} scopes can only be granted by an admin` };
  }

  const consent = await findConsent(deps.store, userId, request.clientId);
  // Consent given on this request counts only for the user who gave it.
  const consentedHere = request.consentedAt !== null && request.consentedBy === userId;
  const permissions = requestedTeamPermissions(request.scope);
  let scope = request.scope;
  if (permissions.length > 0) {
    let teamId = consentedHere ? (request.teamId ?? null) : null;
    if (!consentedHere) {
      const remembered = previouslyBoundTeams(consent?.scopes ?? [], permissions);
      if (remembered.length === 1) teamId = remembered[0]!;
    }
    // The role is checked again here: it may have changed since the user picked the team.
    const refusal = teamId ? await teamGrantRefusal(deps.store, userId, teamId, permissions) : null;
    if (refusal && consentedHere)
      return { kind: 'refuse', error: 'access_denied', description: 'the user can no longer grant these permissions on the team picked' };
    if (!teamId || refusal) return { kind: 'ask' };
    scope = bindTeamScopes(request.scope, teamId);
  }
  if (consentedHere) return { kind: 'grant', scope };
  // A site scope needs the gate (second factor, phrase) at every authorization; a remembered consent is not enough.
  if (site || request.prompt.includes('consent')) return { kind: 'ask' };
  const claims = claimsBeyondScopes(request.claims, request.scope);
  const remembered = scope.every((s) => consent?.scopes.includes(s)) && claims.every((c) => consent?.claims?.includes(c));
  return remembered ? { kind: 'grant', scope } : { kind: 'ask' };
}

/** Each team-scope grant and each site-scope grant in the audit log, apart from the consent record. */
export async function auditScopeGrants(
  deps: ConsentDecisionDeps,
  grant: { userId: string; clientId: string; grantId: string; scope: string[]; siteGateMethod: string | null },
  actor: EventActor,
): Promise<void> {
  const base = { user_id: grant.userId, client_id: grant.clientId, grant_id: grant.grantId };
  for (const { teamId, permissions } of boundTeamGrants(grant.scope))
    await deps.audit.record('team.scope.grant', {
      actor,
      subject: { userId: grant.userId, clientId: grant.clientId, teamId },
      data: { ...base, team_id: teamId, permissions: permissions.map((p) => `team:${teamId}:${p}`) },
    });
  const siteScopes = grant.scope.filter(isSiteScope);
  if (siteScopes.length)
    await deps.audit.record('site.scope.grant', {
      actor,
      subject: { userId: grant.userId, clientId: grant.clientId },
      data: { ...base, scopes: siteScopes, second_factor: grant.siteGateMethod },
    });
}
