// Whether the browser session's sign-in serves an authorization request: the
// user must sign in (again) for prompt=login, max_age or a `claims` sub that
// names someone else (OIDC Core §3.1.2.1, §5.5.1); acr_values=mfa asks for a
// second factor; an essential acr the sign-in does not meet fails the request
// (OIDC Core §5.5.1.1). Pure: the authorization flow
// (api/protocol/authorization-flow.ts) reads the session, asks here, and
// answers (a page, a redirect, or an error to the client).
import type { PendingAuthorization } from '../model/pending-authorization.js';
import type { SessionDoc } from '../model/sessions.js';
import { currentTimeMs } from '../runtime/clock.js';

export type SignInDecision =
  /** Nobody signed in, or a sign-in that does not serve this request: the user signs in (again). */
  | { kind: 'sign-in' }
  /** Signed in for this request, but not as the user the request's `claims` name. */
  | { kind: 'other-user' }
  | { kind: 'signed-in'; userId: string };

type SignIn = Pick<SessionDoc, 'userId' | 'authTime'>;

/**
 * The sign-in the session holds, recent enough for prompt=login and max_age.
 * A sign-in made for this very request always satisfies both (max_age=0
 * would loop otherwise); `claims` may name the one user the ID token may be
 * about, and anyone else signs in again.
 */
export function signInDecision(request: PendingAuthorization, session: SignIn | null | undefined, now = currentTimeMs()): SignInDecision {
  const userId = session?.userId ?? null;
  const authTime = session?.authTime?.getTime() ?? 0;
  const signedInForThisRequest = authTime >= request.createdAt.getTime();
  const wantedSub = request.claims?.sub;
  const otherUser = wantedSub !== undefined && userId !== null && userId !== wantedSub;
  const mustSignIn =
    !userId ||
    (!signedInForThisRequest && (request.prompt.includes('login') || otherUser)) ||
    (!signedInForThisRequest && request.maxAge !== null && now - authTime > request.maxAge * 1000);
  if (mustSignIn) return { kind: 'sign-in' };
  return otherUser ? { kind: 'other-user' } : { kind: 'signed-in', userId };
}

/** acr_values=mfa that the sign-in has not met: a second factor raises it, when the user has one. */
export const wantsSecondFactor = (request: PendingAuthorization, acr: SessionDoc['acr']): boolean => request.acrValues.includes('mfa') && acr !== 'mfa';

/** Why the sign-in does not meet an essential acr of the `claims` parameter, or null when it does (or none is essential). */
export function essentialAcrShortfall(request: PendingAuthorization, acr: SessionDoc['acr']): string | null {
  const wanted = request.claims?.acr;
  if (!wanted?.essential || wanted.values.includes(acr ?? 'pwd')) return null;
  return `the authentication does not meet acr ${wanted.values.join(' or ')}`;
}
