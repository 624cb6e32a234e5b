// Claims of ID tokens, access tokens (RFC 9068) and UserInfo, by granted scope.
// One place for what each scope releases; later claims (teams, apps, domains …)
// plug in here.
import { addressClaim, type ProfileClaimFields } from './profile-fields.js';
import { parseBoundTeamScope } from './scopes.js';
import type { TeamRole } from './team-roles.js';
import type { UserDoc } from './users.js';

/** What claims read of a user. */
export type ClaimsUser = Pick<UserDoc, '_id' | 'email' | 'emailVerified' | 'username' | 'name' | 'picture' | 'role' | 'updatedAt'> & ProfileClaimFields;

export interface AuthContext {
  authTime: Date;
  amr: string[];
  acr: string;
  sid: string | null;
}

const seconds = (d: Date | number) => Math.floor((typeof d === 'number' ? d : d.getTime()) / 1000);

/** The standard claims (OIDC Core §5.4) each scope releases: the one place that says it. */
export const SCOPE_CLAIMS = {
  profile: [
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
} as const;
export type StandardClaim = (typeof SCOPE_CLAIMS)[keyof typeof SCOPE_CLAIMS][number];

/** Each standard claim in plain words, for a consent that names claims one by one (the `claims` parameter). */
export const STANDARD_CLAIM_WORDS: Record<StandardClaim, string> = {
  name: 'Your name',
  family_name: 'Your family name',
  given_name: 'Your given name',
  middle_name: 'Your middle name',
  nickname: 'Your nickname',
  preferred_username: 'Your username',
  profile: 'The address of your profile page',
  picture: 'Your picture',
  website: 'Your website',
  gender: 'Your gender',
  birthdate: 'Your birthdate',
  zoneinfo: 'Your time zone',
  locale: 'Your language and region',
  updated_at: 'When you last changed your profile',
  email: 'Your email address',
  email_verified: 'Whether your email address is verified',
  address: 'Your postal address',
  phone_number: 'Your phone number',
  phone_number_verified: 'Whether your phone number is verified',
};

/** Each standard claim's value for a user; undefined, null or "": the user has none. */
const CLAIM_VALUES: Record<StandardClaim, (user: ClaimsUser) => unknown> = {
  // Every account has a name to show: the username when no name was given.
  name: (u) => u.name || u.username,
  family_name: (u) => u.familyName,
  given_name: (u) => u.givenName,
  middle_name: (u) => u.middleName,
  nickname: (u) => u.nickname,
  preferred_username: (u) => u.username,
  profile: (u) => u.profile,
  picture: (u) => u.picture,
  website: (u) => u.website,
  gender: (u) => u.gender,
  birthdate: (u) => u.birthdate,
  zoneinfo: (u) => u.zoneinfo,
  locale: (u) => u.locale,
  updated_at: (u) => seconds(u.updatedAt),
  email: (u) => u.email,
  email_verified: (u) => u.emailVerified,
  address: (u) => addressClaim(u.address),
  // Whether a number is verified means nothing without one; only an administrator makes it true.
  phone_number: (u) => u.phoneNumber,
  phone_number_verified: (u) => (u.phoneNumber ? u.phoneNumberVerified === true : undefined),
};

const isStandardClaim = (name: string): name is StandardClaim => Object.hasOwn(CLAIM_VALUES, name);

/** The values of those of `names` that are standard claims the user has: a claim without a value is left out, never null or "". */
export function standardClaims(user: ClaimsUser, names: readonly string[]): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const name of names) {
    const value = isStandardClaim(name) ? CLAIM_VALUES[name](user) : undefined;
    if (value !== undefined && value !== null && value !== '') claims[name] = value;
  }
  return claims;
}

/** The standard claims the granted scopes release (SCOPE_CLAIMS). */
export const scopeClaimNames = (scope: readonly string[]): StandardClaim[] =>
  (Object.keys(SCOPE_CLAIMS) as (keyof typeof SCOPE_CLAIMS)[]).flatMap((s) => (scope.includes(s) ? SCOPE_CLAIMS[s] : []));

/** Claims released by scope, shared by the ID token and UserInfo. */
export function scopedUserClaims(user: ClaimsUser, scope: readonly string[]): Record<string, unknown> {
  return standardClaims(user, scopeClaimNames(scope));
}

/**
 * Where the scope's standard claims go (ID_TOKEN_CLAIMS). `scopes`: in the ID
 * token as well as at UserInfo. `requested`: at UserInfo only, as OIDC Core
 * §5.4 has it when an access token is issued, and in the ID token only those
 * asked for there with the `claims` parameter. An access token is always
 * issued but for the implicit flow's response_type=id_token, whose ID token
 * carries the scopes' claims whatever this says (implicit-issuance.ts).
 */
export type IdTokenClaimsPlacement = 'scopes' | 'requested';
export const ID_TOKEN_CLAIMS_PLACEMENTS = ['scopes', 'requested'] as const;

/** The standard claims of an ID token: by scope (placement `scopes`), and those asked for in it with the `claims` parameter. */
export function idTokenClaimNames(scope: readonly string[], requested: readonly string[], placement: IdTokenClaimsPlacement): string[] {
  return [...new Set([...(placement === 'scopes' ? scopeClaimNames(scope) : []), ...requested])];
}

/** UserInfo: `sub`, the standard claims of the scopes, and those asked for at UserInfo with the `claims` parameter. */
export function userinfoClaims(user: ClaimsUser, scope: readonly string[], requested: readonly string[] = []): Record<string, unknown> {
  return { sub: user._id, ...standardClaims(user, [...new Set([...scopeClaimNames(scope), ...requested])]) };
}

/** The opt-in claims: each released when its scope is granted AND the client listed it in `oidc_fields`. */
export const OPT_IN_CLAIMS = {
  apps: 'apps:read',
  domains: 'domains:read',
  gpg_keys: 'gpg:read',
  social_accounts: 'social:read',
} as const;
export type OptInClaim = keyof typeof OPT_IN_CLAIMS;

/** What each opt-in claim lists per entry. */
export interface OptInClaimValues {
  apps: { id: string; name: string; client_id: string; is_verified: boolean }[];
  domains: { id: string; domain: string; verified: boolean }[];
  gpg_keys: { id: string; fingerprint: string; key_id: string; name: string }[];
  social_accounts: { id: string; provider: string; provider_user_id: string }[];
}

/** The opt-in claims this grant releases, so nothing is read for clients that did not opt in (`teams` is with the team claims). */
export function optInClaimsNeeded(scope: readonly string[], oidcFields: readonly string[]): OptInClaim[] {
  return (Object.keys(OPT_IN_CLAIMS) as OptInClaim[]).filter((claim) => scope.includes(OPT_IN_CLAIMS[claim]) && oidcFields.includes(claim));
}

/** A team as the team claims show it: the user's effective role, and their groups when the team uses member groups. */
export interface ClaimsTeam {
  id: string;
  name: string;
  role: TeamRole;
  /** The user's group slugs there; [] when the team has member groups disabled. */
  groups: string[];
}

/**
 * Which teams the team claims cover: every team of the user with `teams:read`;
 * with only bound single-team scopes, just those teams (an app granted one team
 * does not learn the others). null: no team claims.
 */
export function teamClaimsCoverage(scope: readonly string[]): 'all' | string[] | null {
  if (scope.includes('teams:read')) return 'all';
  const ids = [...new Set(scope.flatMap((s) => parseBoundTeamScope(s)?.teamId ?? []))];
  return ids.length ? ids : null;
}

/**
 * The `teams` claim (teams:read + oidc_fields `teams`) and the flat per-team
 * claims (teams:read or a bound team scope, whatever oidc_fields says):
 * in_team_<id>, role_in_team_<id>, and groups_in_team_<id> only when the user
 * holds a group (never an empty array).
 */
export function teamClaims(scope: readonly string[], oidcFields: readonly string[], teams: readonly ClaimsTeam[]): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  if (scope.includes('teams:read') && oidcFields.includes('teams'))
    claims.teams = teams.map((t) => ({ id: t.id, name: t.name, role: t.role, groups: t.groups }));
  for (const t of teams) {
    claims[`in_team_${t.id}`] = true;
    claims[`role_in_team_${t.id}`] = t.role;
    if (t.groups.length > 0) claims[`groups_in_team_${t.id}`] = t.groups;
  }
  return claims;
}

export const TOKEN_TTL_SECONDS = 3600;

export function idTokenClaims(args: {
  issuer: string;
  clientId: string;
  user: ClaimsUser;
  scope: readonly string[];
  /** The standard claims it carries (idTokenClaimNames). */
  claimNames: readonly string[];
  nonce: string | null;
  auth: AuthContext;
  now: number;
  /** Scope- and oidc_fields-gated claims (optInClaims). */
  extra?: Record<string, unknown>;
}): Record<string, unknown> {
  const { issuer, clientId, user, scope, nonce, auth, now } = args;
  return {
    iss: issuer,
    sub: user._id,
    aud: clientId,
    iat: seconds(now),
    exp: seconds(now) + TOKEN_TTL_SECONDS,
    auth_time: seconds(auth.authTime),
    amr: auth.amr,
    acr: auth.acr,
    ...(auth.sid ? { sid: auth.sid } : {}),
    ...(nonce ? { nonce } : {}),
    // The role is part of the profile: released only with it (an RP that asked for
    // `openid` alone learns who signed in, not whether they administer Keyflow).
    ...(scope.includes('profile') ? { role: user.role } : {}),
    ...standardClaims(user, args.claimNames),
    ...args.extra,
  };
}

/**
 * Whether a JWT Keyflow signed (signature already verified) is one of its ID
 * tokens, as idTokenClaims builds them, rather than another of its JWTs: no
 * `typ` header (access tokens are `at+jwt`, logout tokens `logout+jwt`), one
 * audience (the client), the authentication time, and none of the claims only
 * access or logout tokens carry. Expiry is not checked: an expired ID token is
 * still a fine id_token_hint.
 */
export function isIdToken(header: { typ?: string }, claims: Record<string, unknown>, issuer: string): boolean {
  if (header.typ !== undefined && header.typ !== 'JWT') return false;
  if (claims.iss !== issuer || typeof claims.sub !== 'string' || typeof claims.aud !== 'string' || claims.aud.length === 0) return false;
  if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number' || typeof claims.auth_time !== 'number') return false;
  return !['client_id', 'scope', 'grant_id', 'jti', 'cnf', 'events'].some((name) => name in claims);
}

export function accessTokenClaims(args: {
  issuer: string;
  audience: string | string[];
  clientId: string;
  userId: string;
  scope: readonly string[];
  grantId: string;
  jti: string;
  /** How the user authenticated; none for a machine token (client credentials: `sub` is the client). */
  auth?: AuthContext;
  now: number;
}): Record<string, unknown> {
  const { issuer, audience, clientId, userId, scope, grantId, jti, auth, now } = args;
  return {
    iss: issuer,
    sub: userId,
    aud: audience,
    client_id: clientId,
    scope: scope.join(' '),
    jti,
    iat: seconds(now),
    exp: seconds(now) + TOKEN_TTL_SECONDS,
    ...(auth ? { auth_time: seconds(auth.authTime), acr: auth.acr, amr: auth.amr } : {}),
    grant_id: grantId,
    ...(auth?.sid ? { sid: auth.sid } : {}),
  };
}
