// Sensitive account changes (second factors, personal access tokens, an app's
// credentials and redirect URIs) need a recent sign-in, not just a session:
// a browser left signed in, or a stolen session cookie, must not be enough.
// The user signs in again (password and second factor, as always) and comes
// back to the page they were on.
import type { SessionDoc } from '../../lib/model/sessions.js';
import { PAGES } from '../paths.js';
import { currentTimeMs } from '../../lib/runtime/clock.js';

/** True when the session's sign-in is at most `maxAgeMs` old. */
export function signedInRecently(session: Pick<SessionDoc, 'userId' | 'authTime'> | null | undefined, maxAgeMs: number, now = currentTimeMs()): boolean {
  return !!session?.userId && !!session.authTime && now - session.authTime.getTime() <= maxAgeMs;
}

/** The sign-in page in re-authentication mode, returning to `nextPath` (a path on this site) afterwards. */
export function reauthUrl(nextPath: string): string {
  return `${PAGES.login}?reauth=1&next=${encodeURIComponent(nextPath)}`;
}
