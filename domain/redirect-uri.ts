// Redirect URI rules that do not depend on a client: the pre-check every
// candidate URI passes before any match type is tried (spec "Redirect URI matching").

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
  if (candidate.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not contain userinfo';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return null;
  return 'must use https (http only for loopback hosts)';
}
