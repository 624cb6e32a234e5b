// The `claims` authorization request parameter (OIDC Core §5.5): individual
// claims asked for in the ID token and at UserInfo, beside what the scopes
// release. Pure. What Keyflow honours:
// - standard claims (claims.ts SCOPE_CLAIMS) the client could have asked for
//   by scope (a client allowed only `openid` gets no email this way either),
//   essential or voluntary alike — a claim the user has no value for is left
//   out; the user consents to them at the consent page like to scopes;
// - `sub` with a `value` in the ID token: only that user may be signed in;
// - `acr` in the ID token, with `values`: added to acr_values, and when
//   essential, an authentication that meets none of them is refused.
// Any other claim name is ignored, as §5.5 asks of claims not understood.
import { z } from 'zod';
import { scopeClaimNames, type StandardClaim } from './claims.js';

export interface RequestedClaims {
  /** Standard claims asked for in the ID token. */
  idToken: StandardClaim[];
  /** Standard claims asked for at UserInfo. */
  userinfo: StandardClaim[];
  /** The one user the ID token may be about (`sub` with a `value`). */
  sub?: string;
  /** Authentication context values asked for (`acr` with `value` or `values`); essential: one of them must be met. */
  acr?: { values: string[]; essential: boolean };
}

/** The individual claims a code and its grant carry once the user allowed them. */
export interface GrantedClaims {
  idToken: StandardClaim[];
  userinfo: StandardClaim[];
}

/** A JSON text longer than this is refused: a claims request names a few dozen claims at most. */
export const MAX_CLAIMS_PARAMETER = 4096;

const Individual = z
  .union([
    z.null(),
    z.looseObject({
      essential: z.boolean().optional(),
      value: z.unknown().optional(),
      values: z.array(z.unknown()).max(20).optional(),
    }),
  ])
  .optional();
const Member = z.record(z.string().max(100), Individual).optional();
const ClaimsParameter = z.looseObject({ userinfo: Member, id_token: Member });

export type ClaimsParameterCheck = { ok: true; claims: RequestedClaims | null } | { ok: false; description: string };

/**
 * Reads the parameter (undefined: absent). `allowedScopes` are the client's:
 * the standard claims it may ask for are those its scopes could release.
 */
export function parseClaimsParameter(raw: string | undefined, allowedScopes: readonly string[], acrSupported: readonly string[]): ClaimsParameterCheck {
  if (raw === undefined) return { ok: true, claims: null };
  const bad = (why: string): ClaimsParameterCheck => ({ ok: false, description: `claims ${why} (OIDC Core section 5.5)` });
  if (raw.length > MAX_CLAIMS_PARAMETER) return bad(`must be at most ${MAX_CLAIMS_PARAMETER} characters`);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return bad('must be a JSON object');
  }
  const parsed = ClaimsParameter.safeParse(json);
  if (!parsed.success) return bad('must be a JSON object whose userinfo and id_token members map claim names to null or {essential, value, values}');
  const requestable = new Set<string>(scopeClaimNames(allowedScopes));
  const standard = (member: Record<string, unknown> | undefined): StandardClaim[] =>
    Object.keys(member ?? {}).filter((name): name is StandardClaim => requestable.has(name));
  const idToken = parsed.data.id_token ?? {};
  const claims: RequestedClaims = { idToken: standard(idToken), userinfo: standard(parsed.data.userinfo) };

  const sub = idToken.sub;
  if (sub && sub.value !== undefined) {
    if (typeof sub.value !== 'string' || sub.value.length === 0 || sub.value.length > 255) return bad('id_token.sub.value must be a user identifier');
    claims.sub = sub.value;
  }
  const acr = idToken.acr;
  if (acr) {
    const asked = [...(acr.values ?? []), ...(acr.value !== undefined ? [acr.value] : [])];
    if (asked.some((v) => typeof v !== 'string')) return bad('id_token.acr values must be strings');
    const values = (asked as string[]).filter((v) => acrSupported.includes(v));
    // Essential with only values Keyflow never produces cannot be met: refused now, not after a sign-in.
    if (acr.essential === true && asked.length > 0 && values.length === 0)
      return bad(`id_token.acr asks only for values this server does not offer (${acrSupported.join(', ')})`);
    if (values.length) claims.acr = { values, essential: acr.essential === true };
  }
  const empty = !claims.idToken.length && !claims.userinfo.length && !claims.sub && !claims.acr;
  return { ok: true, claims: empty ? null : claims };
}

/** The standard claims a request asks for beyond what its scopes release: what the user consents to besides the scopes. */
export function claimsBeyondScopes(claims: RequestedClaims | null | undefined, scope: readonly string[]): StandardClaim[] {
  if (!claims) return [];
  const byScope = new Set<string>(scopeClaimNames(scope));
  return [...new Set([...claims.idToken, ...claims.userinfo])].filter((c) => !byScope.has(c));
}
