// The entities behind the opt-in and team claims, loaded only when the scope
// (and the client's oidc_fields) ask for them. The ID token and UserInfo both
// build their claims here, so they agree for the same grant.
import { optInClaimsNeeded, teamClaims, teamClaimsCoverage, type ClaimsTeam, type OptInClaim, type OptInClaimValues } from '../model/claims.js';
import type { ClientDoc } from '../model/clients.js';
import { socialAccountJson } from '../model/oauth-sources.js';
import { MAX_CLAIMED_TEAMS, type UserTeam } from '../model/teams.js';
import { listClientsByOwner } from '../store/clients.js';
import type { Store } from '../store/db.js';
import { socialAccountsOf } from '../store/oauth-sources.js';
import { listGpgKeys } from '../store/gpg-keys.js';
import { listDomains } from '../store/custom-domains.js';
import { gpgKeyClaim } from '../model/gpg-keys.js';
import { findTeams } from '../store/teams.js';
import { userTeam, userTeams } from '../teams/membership.js';

/** How each opt-in claim is read for a user. */
const OPT_IN_LOADERS: { [C in OptInClaim]?: (store: Store, userId: string) => Promise<OptInClaimValues[C]> } = {
  apps: async (store, userId) =>
    (await listClientsByOwner(store, userId)).map((c) => ({ id: c._id, name: c.name, client_id: c._id, is_verified: c.isVerified === true })),
  domains: async (store, userId) => (await listDomains(store, userId)).map((d) => ({ id: d._id, domain: d.domain, verified: d.verified })),
  gpg_keys: async (store, userId) => (await listGpgKeys(store, userId)).map(gpgKeyClaim),
  social_accounts: async (store, userId) => (await socialAccountsOf(store, userId)).map(socialAccountJson),
};

const claimsTeam = (t: UserTeam): ClaimsTeam => ({ id: t.team._id, name: t.team.name, role: t.role, groups: t.team.memberGroupsEnabled ? t.groups : [] });

/** The teams the claims cover: the user's nearest MAX_CLAIMED_TEAMS, or the bound teams where the user still has a role. */
async function claimedTeams(store: Store, userId: string, coverage: 'all' | string[]): Promise<ClaimsTeam[]> {
  if (coverage === 'all') return (await userTeams(store, userId, MAX_CLAIMED_TEAMS)).map(claimsTeam);
  const teams = await findTeams(store, coverage);
  const standing = await Promise.all(teams.map((t) => userTeam(store, userId, t)));
  return standing.flatMap((t) => (t ? [claimsTeam(t)] : []));
}

/** Claims beyond the profile: the opt-in claims (`apps`, `domains`, `gpg_keys`, `social_accounts`, `teams`) and the flat per-team claims. */
export async function relatedClaims(store: Store, client: ClientDoc, userId: string, scope: string[]): Promise<Record<string, unknown>> {
  const oidcFields = client.oidcFields ?? [];
  const claims: Record<string, unknown> = {};
  for (const claim of optInClaimsNeeded(scope, oidcFields)) {
    const load = OPT_IN_LOADERS[claim];
    if (load) claims[claim] = await load(store, userId);
  }
  const coverage = teamClaimsCoverage(scope);
  if (coverage) Object.assign(claims, teamClaims(scope, oidcFields, await claimedTeams(store, userId, coverage)));
  return claims;
}
