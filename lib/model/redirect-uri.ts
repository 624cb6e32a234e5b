// Redirect URI rules (docs/authorization.md, "Redirect URI matching"): the pre-check every
// candidate URI passes before any match type is tried, then matching against
// a client's registered entries. Pure. Redirect URIs are always pre-registered
// (RFC 9700 §2.1): a client with no entry accepts none, and nothing is learned.
//
// Matching sees unauthenticated input (any authorization request) against
// patterns any user may register, so every match type runs in time linear in
// the candidate: Equals and Wildcard are string comparisons, Regex entries run
// in RE2 (re2js: automata, no backtracking), within caps on both sides.
import { RE2JS, RE2JSSyntaxException } from 're2js';

export const REDIRECT_URI_TYPES = ['equals', 'wildcard', 'regex'] as const;
export type RedirectUriType = (typeof REDIRECT_URI_TYPES)[number];
export interface RedirectUriEntry {
  type: RedirectUriType;
  value: string;
}

/** Longer candidates (and Equals entries) are refused by the pre-check, before any matching. */
export const MAX_REDIRECT_URI_LENGTH = 2048;
/** Longest source of a Regex entry. */
export const MAX_REGEX_LENGTH = 500;
/**
 * Largest compiled Regex entry (RE2 instructions). RE2 matching costs up to
 * candidate length × program size steps, and counted repetitions are unrolled:
 * 500 characters of `.{0,1000}` compile to 110 000 instructions, which take
 * about a minute against one 2048-character candidate. 1000 admits any
 * pattern within the length cap that has no large {n,m} count.
 */
export const MAX_REGEX_PROGRAM_SIZE = 1000;
/**
 * Counted repetitions ({n}, {n,}, {n,m}) may add up to this much. Each one
 * unrolls into at least that many instructions, so a pattern over it could
 * never fit MAX_REGEX_PROGRAM_SIZE; refusing it before compiling spares the
 * compile itself, which is slow for huge programs.
 */
const MAX_REGEX_REPEAT_TOTAL = MAX_REGEX_PROGRAM_SIZE;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** null when the URI may be used as a redirect URI, else the reason it may not. */
export function precheckRedirectUri(candidate: string): string | null {
  // First, so that nothing below (nor any match type) ever works on an unbounded string.
  if (candidate.length > MAX_REDIRECT_URI_LENGTH) return `must be at most ${MAX_REDIRECT_URI_LENGTH} characters`;
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

// ---- Wildcard ------------------------------------------------------------

/** A Wildcard entry split around its `*`, which sits in the leftmost host label. */
interface Wildcard {
  /** Everything before the `*`, e.g. `https://pr-`. */
  before: string;
  /** Everything after it, e.g. `.preview.example.com/cb`. */
  after: string;
  /** The `*` label's fixed parts, lowercased (hosts compare lowercased). */
  labelPrefix: string;
  labelSuffix: string;
}

const DNS_LABEL = /^[a-z0-9-]+$/i;
const WILDCARD_LABEL = /^([a-z0-9-]*)\*([a-z0-9-]*)$/i;
/** What the `*` may stand for in a candidate's (lowercased) host: one or more label characters, never a dot. */
const STAR_MATCH = /^[a-z0-9-]+$/;
const WILDCARD_EXAMPLE = 'e.g. https://*.example.com/cb';

function parseWildcard(value: string): { ok: true; wildcard: Wildcard } | { ok: false; problem: string } {
  const fail = (problem: string) => ({ ok: false as const, problem });
  const star = value.indexOf('*');
  if (star === -1 || value.indexOf('*', star + 1) !== -1) return fail(`must contain exactly one * (${WILDCARD_EXAMPLE})`);
  const schemeEnd = value.indexOf('://');
  if (schemeEnd === -1) return fail('must be an absolute URI');
  const hostStart = schemeEnd + 3;
  const authorityEnd = value.slice(hostStart).search(/[/?#]/);
  const authority = authorityEnd === -1 ? value.slice(hostStart) : value.slice(hostStart, hostStart + authorityEnd);
  if (authority.includes('@')) return fail('must not contain userinfo');
  const host = authority.replace(/:\d*$/, '');
  const starInHost = star - hostStart;
  if (starInHost < 0 || starInHost >= host.length) return fail(`may have its * only in the leftmost label of the host (${WILDCARD_EXAMPLE})`);
  const [first = '', ...rest] = host.split('.');
  const label = WILDCARD_LABEL.exec(first);
  if (!label) return fail(`may have its * only in the leftmost label of the host (${WILDCARD_EXAMPLE})`);
  if (!rest.every((l) => DNS_LABEL.test(l)) || /^\d+$/.test(rest.at(-1) ?? '')) {
    return fail('must name a DNS host: labels of letters, digits and hyphens');
  }
  // `*.com` would hand the redirect to whoever registers any .com domain.
  if (rest.length < 2) return fail(`must keep at least two fixed labels after the * label (${WILDCARD_EXAMPLE}, not https://*.com/cb)`);
  // Any value the `*` may take gives a URI that must pass the pre-check like an Equals entry.
  const problem = precheckRedirectUri(`${value.slice(0, star)}x${value.slice(star + 1)}`);
  if (problem) return fail(problem);
  return {
    ok: true,
    wildcard: { before: value.slice(0, star), after: value.slice(star + 1), labelPrefix: label[1]!.toLowerCase(), labelSuffix: label[2]!.toLowerCase() },
  };
}

/**
 * The `*` stands for one or more label characters of the candidate's leftmost
 * host label; with that value put in, the entry must equal the candidate after
 * normalization (scheme, rest of the host, port, path and query).
 */
function matchesWildcard(value: string, candidate: string): boolean {
  const parsed = parseWildcard(value);
  if (!parsed.ok) return false; // stored before these rules: matches nothing
  const { before, after, labelPrefix, labelSuffix } = parsed.wildcard;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  const label = url.hostname.split('.', 1)[0]!;
  if (label.length <= labelPrefix.length + labelSuffix.length || !label.startsWith(labelPrefix) || !label.endsWith(labelSuffix)) return false;
  const starValue = label.slice(labelPrefix.length, label.length - labelSuffix.length);
  return STAR_MATCH.test(starValue) && normalizeUri(before + starValue + after) === url.href;
}

// ---- Regex ---------------------------------------------------------------

type CompiledRegex = { ok: true; re: RE2JS } | { ok: false; problem: string };

/** Sum of the counts of {n}, {n,} and {n,m} (the larger one); over-counts escaped braces, which only errs on the strict side. */
function repeatTotal(source: string): number {
  let total = 0;
  for (const m of source.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) total += Number(m[2] || m[1]);
  return total;
}

function compileRegex(source: string): CompiledRegex {
  const fail = (problem: string): CompiledRegex => ({ ok: false, problem });
  if (source.length > MAX_REGEX_LENGTH) return fail(`must be at most ${MAX_REGEX_LENGTH} characters`);
  const tooComplex = `is too complex for the linear-time regular expression engine (at most ${MAX_REGEX_PROGRAM_SIZE} instructions once compiled; large {n,m} counts are the usual cause)`;
  if (repeatTotal(source) > MAX_REGEX_REPEAT_TOTAL) return fail(tooComplex);
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (err) {
    const detail = err instanceof RE2JSSyntaxException ? ` (${err.error}${err.input ? `: ${err.input}` : ''})` : '';
    return fail(`is not a valid regular expression for the linear-time engine (RE2 syntax: no backreferences, no lookahead or lookbehind)${detail}`);
  }
  return re.programSize() > MAX_REGEX_PROGRAM_SIZE ? fail(tooComplex) : { ok: true, re };
}

// Compiling costs more than matching: entries are compiled once per process.
// Bounded, oldest evicted first, so that registering many patterns cannot grow it.
const REGEX_CACHE_SIZE = 500;
const regexCache = new Map<string, CompiledRegex>();

function cachedRegex(source: string): CompiledRegex {
  let compiled = regexCache.get(source);
  if (!compiled) {
    compiled = compileRegex(source);
    if (regexCache.size >= REGEX_CACHE_SIZE) regexCache.delete(regexCache.keys().next().value!);
    regexCache.set(source, compiled);
  }
  return compiled;
}

/**
 * RE2's full match: the pattern must match the whole candidate, never a prefix
 * or a substring (https://good.example vs https://good.example.evil.com). An
 * entry that does not compile within the caps (stored before them) matches nothing.
 */
function matchesRegex(source: string, candidate: string): boolean {
  const compiled = cachedRegex(source);
  return compiled.ok && compiled.re.testExact(candidate);
}

// ---- Entries -------------------------------------------------------------

/** True when `candidate` matches the entry (Equals after normalization, Wildcard in the leftmost host label, or Regex on the whole URI). */
export function matchesRedirectUri(entry: RedirectUriEntry, candidate: string): boolean {
  switch (entry.type) {
    case 'equals': {
      const a = normalizeUri(candidate);
      return a !== null && a === normalizeUri(entry.value);
    }
    case 'wildcard':
      return matchesWildcard(entry.value, candidate);
    case 'regex':
      return matchesRegex(entry.value, candidate);
  }
}

/** Why an entry cannot be registered (as a client is created or changed), or null. */
export function redirectUriEntryProblem(entry: RedirectUriEntry): string | null {
  switch (entry.type) {
    case 'equals':
      return precheckRedirectUri(entry.value);
    case 'wildcard': {
      const parsed = parseWildcard(entry.value);
      return parsed.ok ? null : parsed.problem;
    }
    case 'regex': {
      const compiled = compileRegex(entry.value);
      return compiled.ok ? null : compiled.problem;
    }
  }
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
