// Machine access: what a confidential client may get with the
// client_credentials grant (RFC 6749 §4.4), acting for itself, not a user.
// An operator (CLI, admin API, console) allows a client resources, and at each
// resource the scopes it may hold; an app's owner cannot, so that nobody can
// mint tokens for an API its operator did not open to that client. Scopes here
// are the resource servers' own (`orders:read`), never Keyflow's user scopes,
// which act on a user a machine token does not have. Pure.
import { isKnownScope, parseScopeParam } from './scopes.js';
import { parseResources, type ResourceCheck } from './resources.js';

export interface MachineAccessEntry {
  /** An RFC 8707 resource indicator: the token's `aud`. */
  resource: string;
  /** The scopes the client may hold at this resource. */
  scopes: string[];
}

/** RFC 6749 §3.3 scope-token characters, bounded: linear. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/;

/** Why `scope` cannot be a machine scope, or null. */
export function machineScopeProblem(scope: string): string | null {
  if (!SCOPE_TOKEN.test(scope)) return `${JSON.stringify(scope)} is not a scope (1 to 128 printable characters, no space, quote or backslash)`;
  if (isKnownScope(scope)) return `${scope} is a scope of Keyflow's users, which a client acting for itself cannot hold`;
  return null;
}

export type MachineRequest = { ok: true; resources: string[]; scope: string[] } | { ok: false; error: 'invalid_target' | 'invalid_scope'; description: string };

/**
 * What a client_credentials request of a client with `access` gets: the
 * `resource` values asked for (each one the client is allowed; none: its only
 * resource, and a client with several must name one), and the `scope` asked
 * for (each allowed at one of those resources; none: every scope allowed at
 * them).
 */
export function machineRequest(access: readonly MachineAccessEntry[], rawResource: unknown, rawScope: string | undefined): MachineRequest {
  const parsed: ResourceCheck = parseResources(rawResource);
  if (!parsed.ok) return parsed;
  let entries: readonly MachineAccessEntry[];
  if (parsed.resources.length === 0) {
    if (access.length !== 1)
      return { ok: false, error: 'invalid_target', description: 'this application may use several resources: name one with the resource parameter (RFC 8707)' };
    entries = access;
  } else {
    const refused = parsed.resources.find((r) => !access.some((e) => e.resource === r));
    if (refused) return { ok: false, error: 'invalid_target', description: `this application may not get tokens for the resource ${refused}` };
    entries = access.filter((e) => parsed.resources.includes(e.resource));
  }
  const allowed = [...new Set(entries.flatMap((e) => e.scopes))];
  if (rawScope === undefined) return { ok: true, resources: entries.map((e) => e.resource), scope: allowed };
  const scope = parseScopeParam(rawScope);
  if (scope.length === 0) return { ok: false, error: 'invalid_scope', description: 'scope must not be empty' };
  const extra = scope.find((s) => !allowed.includes(s));
  if (extra) return { ok: false, error: 'invalid_scope', description: `this application may not hold the scope ${extra} at the resources asked for` };
  return { ok: true, resources: entries.map((e) => e.resource), scope };
}

/**
 * Parses the CLI's `--machine-access RESOURCE=SCOPE[,SCOPE…]` values (the
 * scopes also space-separated) into entries, one per resource.
 */
export function parseMachineAccessArgs(values: readonly string[]): { ok: true; access: MachineAccessEntry[] } | { ok: false; description: string } {
  const access: MachineAccessEntry[] = [];
  for (const value of values) {
    const at = value.lastIndexOf('=');
    const resource = at > 0 ? value.slice(0, at) : '';
    const scopes =
      at > 0
        ? [
            ...new Set(
              value
                .slice(at + 1)
                .split(/[\s,]+/)
                .filter(Boolean),
            ),
          ]
        : [];
    if (!resource || scopes.length === 0)
      return { ok: false, description: `${JSON.stringify(value)} must be RESOURCE=SCOPE[,SCOPE…], e.g. https://api.example/=orders:read` };
    const existing = access.find((e) => e.resource === resource);
    if (existing) existing.scopes = [...new Set([...existing.scopes, ...scopes])];
    else access.push({ resource, scopes });
  }
  return { ok: true, access };
}
