// The entities behind the opt-in and team claims, loaded only when the scope
// (and the client's oidc_fields) ask for them. The ID token and UserInfo both
// build their claims here, so they agree for the same grant.
import { optInClaims, optInClaimsNeeded, teamClaims, teamClaimsCoverage, type ClaimsTeam } from '../../lib/domain/claims.js';
import type { ClientDoc } from '../../lib/domain/clients.js';
import { MAX_CLAIMED_TEAMS, type UserTeam } from '../../lib/domain/teams.js';
import { listClientsByOwner } from '../../lib/store/clients.js';
import type { Store } from '../../lib/store/db.js';
import { findTeams } from '../../lib/store/teams.js';
import { userTeam, userTeams } from '../../lib/teams/membership.js';

const claimsTeam = (t: UserTeam): ClaimsTeam => ({ id: t.team._id, name: t.team.name, role: t.role, groups: t.team.memberGroupsEnabled ? t.groups : [] });

/** The teams the claims cover: the user's nearest MAX_CLAIMED_TEAMS, or the bound teams where the user still has a role. */
async function claimedTeams(store: Store, userId: string, coverage: 'all' | string[]): Promise<ClaimsTeam[]> {
  if (coverage === 'all') return (await userTeams(store, userId, MAX_CLAIMED_TEAMS)).map(claimsTeam);
  const teams = await findTeams(store, coverage);
  const standing = await Promise.all(teams.map((t) => userTeam(store, userId, t)));
  return standing.flatMap((t) => (t ? [claimsTeam(t)] : []));
}

/** Claims beyond the profile: `apps` and `teams` (oidc_fields opt-in) and the flat per-team claims. */
export async function relatedClaims(store: Store, client: ClientDoc, userId: string, scope: string[]): Promise<Record<string, unknown>> {
  const oidcFields = client.oidcFields ?? [];
  const claims: Record<string, unknown> = {};
  if (optInClaimsNeeded(scope, oidcFields).apps) {
    const apps = (await listClientsByOwner(store, userId)).map((c) => ({ id: c._id, name: c.name, isVerified: c.isVerified === true }));
    Object.assign(claims, optInClaims(scope, oidcFields, { apps }));
  }
  const coverage = teamClaimsCoverage(scope);
  if (coverage) Object.assign(claims, teamClaims(scope, oidcFields, await claimedTeams(store, userId, coverage)));
  return claims;
}
