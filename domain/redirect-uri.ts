// Redirect URI rules (spec "Redirect URI matching"): the pre-check every
// candidate URI passes before any match type is tried, then matching against
// a client's registered entries. Pure. Redirect URIs are always pre-registered
// (RFC 9700 §2.1): a client with no entry accepts none, and nothing is learned.
import type { RedirectUriEntry } from './clients.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** null when the URI may be used as a redirect URI, else the reason it may not. */
export function precheckRedirectUri(candidate: string): string | null {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return 'must be an absolute URI';
  }
  // The URL parser drops tabs and newlines; refuse them so every match type sees what Equals sees.
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f]/.test(candidate)) return 'must not contain whitespace or control characters';
  if (candidate.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not contain userinfo';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return null;
  return 'must use https (http only for loopback hosts)';
}

/** The normalized form used by Equals matching (WHATWG URL serialization), or null when unparseable. */
export function normalizeUri(uri: string): string | null {
  try {
    return new URL(uri).href;
  } catch {
    return null;
  }
}

// Anchored so that a registered pattern can never match just a prefix or a
// substring of the candidate (https://good.example vs https://good.example.evil.com).
function wholeMatch(source: string, candidate: string): boolean {
  let re: RegExp;
  try {
    new RegExp(source); // validate alone first: a valid pattern has balanced groups, so wrapping it cannot change its meaning
    re = new RegExp(`^(?:${source})$`);
  } catch {
    return false; // an invalid pattern matches nothing rather than failing the request
  }
  return re.test(candidate);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * A Wildcard entry as a regular expression: `*` is any run of characters,
 * except that in the authority (scheme://HOST:PORT) it cannot cross into the
 * path, query or userinfo — otherwise `https://*.example.com/cb` would admit
 * `https://evil.com/x.example.com/cb`.
 */
function globToRegExp(glob: string): string {
  const authorityEnd = glob.indexOf('/', glob.indexOf('://') + 3);
  const split = authorityEnd === -1 ? glob.length : authorityEnd;
  const part = (s: string, star: string) => s.split('*').map(escapeRegExp).join(star);
  return part(glob.slice(0, split), '[^/?#@\\\\]*') + part(glob.slice(split), '[\\s\\S]*');
}

/** True when `candidate` matches the entry (Equals after normalization, Wildcard glob, or Regex on the whole URI). */
export function matchesRedirectUri(entry: RedirectUriEntry, candidate: string): boolean {
  switch (entry.type) {
    case 'equals': {
      const a = normalizeUri(candidate);
      return a !== null && a === normalizeUri(entry.value);
    }
    case 'wildcard':
      return wholeMatch(globToRegExp(entry.value), candidate);
    case 'regex':
      return wholeMatch(entry.value, candidate);
  }
}

/** Why an entry cannot be registered (as a client is created or changed), or null. */
export function redirectUriEntryProblem(entry: RedirectUriEntry): string | null {
  if (entry.type === 'equals') return precheckRedirectUri(entry.value);
  if (entry.type === 'regex') {
    try {
      new RegExp(entry.value);
    } catch {
      return 'is not a valid regular expression';
    }
  }
  return null;
}

export type RedirectUriDecision = { ok: true } | { ok: false; reason: string };

/** The whole redirect URI rule: pre-check, then match against the registered entries. */
export function checkRedirectUri(entries: readonly RedirectUriEntry[], candidate: string): RedirectUriDecision {
  // The pre-check comes first so that no entry (not even a `.*` regex) can admit an unsafe URI.
  const problem = precheckRedirectUri(candidate);
  if (problem) return { ok: false, reason: `redirect_uri ${problem}` };
  if (entries.some((e) => matchesRedirectUri(e, candidate))) return { ok: true };
  return { ok: false, reason: entries.length === 0 ? 'this client has no registered redirect URI' : 'redirect_uri is not registered for this client' };
}
