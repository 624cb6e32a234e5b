// Resource indicators (RFC 8707): which protected resources a token is meant
// for. Pure validation, shared by the authorization endpoint, PAR, the device
// authorization endpoint and the token endpoint. A client may name only the
// resources it lists (`allowedResources`); each accepted value ends up in the
// access token's `aud`, next to the issuer when a scope of Keyflow's own API
// was granted.
import { isKeyflowApiScope } from './scopes.js';

/** At most this many `resource` values per request. */
export const MAX_RESOURCES = 10;
const MAX_RESOURCE_LENGTH = 2048;

export type ResourceCheck = { ok: true; resources: string[] } | { ok: false; error: 'invalid_target'; description: string };

/** Why a single `resource` value is unacceptable, or null when it is an absolute URI without fragment (RFC 8707 §2). */
export function resourceProblem(value: string): string | null {
  if (value.length === 0 || value.length > MAX_RESOURCE_LENGTH) return `must be 1 to ${MAX_RESOURCE_LENGTH} characters`;
  if (/\s/.test(value) || [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    return 'must not contain whitespace or control characters';
  if (value.includes('#')) return 'must not contain a fragment';
  // An absolute URI starts with a scheme (RFC 3986 §4.3); `new URL` alone would also accept odd inputs.
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value)) return 'must be an absolute URI';
  try {
    new URL(value);
  } catch {
    return 'must be an absolute URI';
  }
  return null;
}

/**
 * The `resource` parameter as parsed from a query string or form body: absent,
 * one string, or an array when repeated. Duplicates are removed, order kept.
 */
export function parseResources(raw: unknown): ResourceCheck {
  if (raw === undefined) return { ok: true, resources: [] };
  const values = Array.isArray(raw) ? raw : [raw];
  if (values.length > MAX_RESOURCES) return { ok: false, error: 'invalid_target', description: `at most ${MAX_RESOURCES} resource values are accepted` };
  const resources: string[] = [];
  for (const v of values) {
    if (typeof v !== 'string') return { ok: false, error: 'invalid_target', description: 'resource must be a string' };
    const problem = resourceProblem(v);
    if (problem) return { ok: false, error: 'invalid_target', description: `resource ${problem}` };
    if (!resources.includes(v)) resources.push(v);
  }
  return { ok: true, resources };
}

/** The `resource` parameter (parseResources), each value one the client lists in `allowed` (its allowedResources). */
export function parseAllowedResources(raw: unknown, allowed: readonly string[]): ResourceCheck {
  const parsed = parseResources(raw);
  if (!parsed.ok) return parsed;
  const refused = parsed.resources.find((r) => !allowed.includes(r));
  if (refused) return { ok: false, error: 'invalid_target', description: `this application may not ask for the resource ${refused}` };
  return parsed;
}

/**
 * Resources for one token request (RFC 8707 §2.2): the requested values, each
 * of which must have been granted; all granted ones when none is requested.
 * Only those the client still lists in `allowed`: a resource taken off the
 * client's list is no longer given, and asking for it is invalid_target.
 */
export function narrowResources(granted: readonly string[], raw: unknown, allowed: readonly string[]): ResourceCheck {
  const parsed = parseResources(raw);
  if (!parsed.ok) return parsed;
  if (parsed.resources.length === 0) return { ok: true, resources: granted.filter((r) => allowed.includes(r)) };
  const extra = parsed.resources.find((r) => !granted.includes(r) || !allowed.includes(r));
  if (extra) return { ok: false, error: 'invalid_target', description: `the resource ${extra} was not granted` };
  return parsed;
}

/**
 * The access token's `aud` (RFC 9068 §3): the issuer (Keyflow's own API) when
 * a scope it serves was granted, then the resources; one value alone is a
 * string. With neither, the client itself: `aud` is required, and such a token
 * (e.g. only `app:<client_id>:*` or offline_access) is for no resource server.
 */
export function accessTokenAudience(
  issuer: string,
  resources: readonly string[] | undefined,
  token: { scope: readonly string[]; clientId: string },
): string | string[] {
  const audience = [...(token.scope.some(isKeyflowApiScope) ? [issuer] : []), ...(resources ?? []).filter((r) => r !== issuer)];
  if (audience.length === 0) return token.clientId;
  return audience.length === 1 ? audience[0]! : audience;
}
