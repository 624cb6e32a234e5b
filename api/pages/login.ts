// Sign-in: /login (email and password, or a passkey), /login/second-factor
// (TOTP, backup code or passkey). After sign-in the browser returns to
// the authorization request it came from, or to /account. Every path is
// limited (per account or user, per address, site-wide) and may ask for the
// captcha: api/sign-in-checks/sign-in-limits.ts.
import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { hashPassword, needsRehash, unknownAccountHash, verifyPassword } from '../../lib/security/password.js';
import type { SessionDoc } from '../../lib/model/sessions.js';
import { ACCOUNT_DISABLED, isDisabled, type UserDoc } from '../../lib/model/users.js';
import { hasPasskey } from '../../lib/store/passkeys.js';
import { findUserByEmail, findUserById, setPasswordHash } from '../../lib/store/users.js';
import { enabledSources } from '../../lib/store/oauth-sources.js';
import { verifySecondFactorCode, hasSecondFactor } from '../../lib/verification/second-factor.js';
import { authenticationOptions, relyingParty, verifyPasskey } from '../sign-in-checks/webauthn.js';
import { captchaFormFields } from '../sign-in-checks/captcha.js';
import { signInLimits } from '../sign-in-checks/sign-in-limits.js';
import { sendErrorPage } from '../html/layout.js';
import { loginPage, secondFactorPage, type LoginPageOptions } from '../views/login.js';
import { signupHref } from '../views/signup.js';
import { formCsrf, hasValidCsrf, sessionForState, startSignedInSession } from '../http/session.js';
import { sessionUser } from '../http/signed-in.js';
import { respondWithError, resumeUrl, startedInThisBrowser, type FlowDeps } from '../protocol/authorization-flow.js';
import { findAuthorizationRequest } from '../../lib/store/authorization-requests.js';
import type { ClientDoc } from '../../lib/model/clients.js';
import { fieldsOf, raw, text } from '../http/input.js';
import type { ApiContext } from '../context.js';
import { PAGES, STEP_UP_PATHS } from '../paths.js';
import { currentDate, currentTimeMs } from '../../lib/runtime/clock.js';

export type LoginDeps = Pick<ApiContext, 'issuer' | 'store' | 'log' | 'secureCookies' | 'kek' | 'limits' | 'outbound' | 'findClient' | 'audit'> & FlowDeps;

const TOO_MANY_REQUESTS = 'Too many requests from your network. Wait a minute and try again.';

// `next` (a page path) travels in the same slot as `request`, so every form, redirect and passkey call that carries one carries the other.
const ResumeFields = fieldsOf({ request: raw, next: raw });
export const requestParam = (req: Request): string | null => {
  const query = ResumeFields.parse(req.query);
  const body = ResumeFields.parse(req.body);
  const v = query.request ?? body.request ?? query.next ?? body.next;
  return typeof v === 'string' && v.length <= 200 ? v : null;
};

/**
 * The only `next` accepted (no open redirect): a path on this site of the
 * device page, the step-up confirmation page or the account pages, with an
 * optional plain query. Each alternative starts with a fixed word and each
 * path segment with its own "/", so the match is linear in the input.
 */
const NEXT_PATH = new RegExp(`^(?:${PAGES.device}(?:/[a-z]+)?|${STEP_UP_PATHS.page}|${PAGES.account}(?:/[a-z0-9-]{1,64}){0,4})(?:\\?[A-Za-z0-9_=&-]*)?$`);

/** Where to go once signed in: back into the authorization request, to the page named by `next`, or the account page. */
export const afterSignIn = (requestId: string | null) => (requestId ? (NEXT_PATH.test(requestId) ? requestId : resumeUrl(requestId)) : PAGES.account);

const PasswordForm = z.object({ email: z.string().max(254), password: z.string().max(1024), request: z.string().max(200).optional() });

/** `reauth=1` asks a signed-in user to sign in again; the second-factor code; a passkey's answer (checked by verifyPasskey). */
const ReauthQuery = fieldsOf({ reauth: raw });
const CodeForm = fieldsOf({ code: text });
/** An invitation link's token, passed on to "Create an account". */
const InviteQuery = fieldsOf({ invite: text });
const PasskeyAnswer = fieldsOf({ response: raw });

const disabledJson = (res: Response) => res.status(403).set('Cache-Control', 'no-store').json({ error: 'access_denied', error_description: ACCOUNT_DISABLED });

export function loginRoutes(deps: LoginDeps): Router {
  const router = Router();
  const rp = relyingParty(deps.issuer);
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const json = express.json({ limit: '64kb' });
  const limits = signInLimits(deps);

  async function pendingUser(session: SessionDoc | null | undefined): Promise<UserDoc | null> {
    if (!session?.pending || currentTimeMs() - session.pending.at.getTime() > 10 * 60_000) return null;
    return findUserById(deps.store, session.pending.userId);
  }

  /** Completes a sign-in: a new session with how the user authenticated. */
  async function signIn(req: Request, res: Response, user: UserDoc, amr: string[]) {
    const unique = [...new Set(amr)];
    const acr = unique.includes('mfa') ? 'mfa' : 'pwd';
    await startSignedInSession(req, res, deps, { userId: user._id, amr: unique, acr });
    deps.log.info('signed in', { user: user._id, amr: unique.join(' ') });
  }

  /**
   * The client of the authorization request this sign-in serves, when that
   * request was started in this browser: a link to another browser's request
   * (which could not finish here) shows no client.
   */
  async function requestingClient(req: Request): Promise<ClientDoc | null> {
    const requestId = requestParam(req);
    if (!requestId || NEXT_PATH.test(requestId)) return null;
    const request = await findAuthorizationRequest(deps.store, requestId);
    return request && startedInThisBrowser(req, deps, request) ? deps.findClient(request.clientId) : null;
  }

  /** The form again, with the captcha when the address, the site or (given) the account needs it. */
  async function showForm(req: Request, res: Response, opts: LoginPageOptions & { captchaFor?: string; forceCaptcha?: boolean } = {}) {
    const { settings, needed } = await limits.captchaNeeded(req, opts.captchaFor);
    const captcha = settings.captcha_provider !== 'none' && (needed || opts.forceCaptcha) ? captchaFormFields(settings, PAGES.loginCaptcha) : null;
    const sources = (await enabledSources(deps.store)).map(({ slug, name }) => ({ slug, name }));
    const signup = signupHref(settings.registration, InviteQuery.parse(req.query).invite ?? null, requestParam(req));
    const client = await requestingClient(req);
    loginPage(res, formCsrf(req, res, deps), requestParam(req), { ...opts, captcha, sources, signup, client });
  }

  router.get(PAGES.login, async (req, res) => {
    // reauth=1: the signed-in user signs in again (the form even though signed in, the email fixed), then `next`.
    const user = ReauthQuery.parse(req.query).reauth === '1' ? await sessionUser(deps, req) : null;
    await showForm(req, res, user ? { email: user.email, reauth: true } : {});
  });

  router.get(PAGES.loginCaptcha, async (req, res) => {
    const { status, body } = await limits.powChallenge(req);
    res.status(status).set('Cache-Control', 'no-store').json(body);
  });

  // The user gives up signing in to an authorization request: the client is answered
  // access_denied at its redirect URI (OIDC Core §3.1.2.6), as when consent is denied.
  router.post(PAGES.loginCancel, form, async (req, res) => {
    const requestId = requestParam(req);
    if (!hasValidCsrf(req, req.kfSession)) return sendErrorPage(res, 400, 'Session expired', 'Your session expired. Go back and try again.');
    const request = requestId && !NEXT_PATH.test(requestId) ? await findAuthorizationRequest(deps.store, requestId) : null;
    if (!request) return sendErrorPage(res, 400, 'Request expired', 'This sign-in is no longer waiting. Return to the application and start again.');
    if (!startedInThisBrowser(req, deps, request)) return sendErrorPage(res, 403, 'Another browser', 'This sign-in was started in another browser.');
    deps.log.info('sign-in cancelled', { client: request.clientId });
    await respondWithError(res, deps, request, 'access_denied', 'the user cancelled the sign-in');
  });

  router.post(PAGES.login, form, async (req, res) => {
    const parsed = PasswordForm.safeParse(req.body);
    const requestId = requestParam(req);
    if (!hasValidCsrf(req, req.kfSession) || !parsed.success) {
      return showForm(req, res, { error: 'Your session expired. Please try again.', status: 400 });
    }
    const email = parsed.data.email.trim().toLowerCase();
    // Counted before the password is checked: parallel guesses cannot run past the limits. A right password gives the slots back.
    const begun = await limits.beginPassword(req, email);
    if (!begun.ok) return showForm(req, res, { email, error: begun.error, status: begun.status, captchaFor: email, forceCaptcha: begun.captcha });
    const user = await findUserByEmail(deps.store, email);
    const valid = await verifyPassword(parsed.data.password, user?.passwordHash ?? unknownAccountHash());
    if (!user || !valid) {
      await limits.failed(req, 'password', email, 'bad credentials');
      return showForm(req, res, { email, error: 'Incorrect email or password.', status: 401, captchaFor: email });
    }
    await begun.attempt.release();
    // Said only after the right password: a guesser learns nothing about the account.
    if (isDisabled(user)) {
      await limits.disabled(req, user, ['pwd']);
      return showForm(req, res, { email, error: ACCOUNT_DISABLED, status: 403 });
    }
    if (needsRehash(user.passwordHash)) await setPasswordHash(deps.store, user._id, await hashPassword(parsed.data.password));
    if (await hasSecondFactor(deps.store, user)) {
      // The pending second factor is the first state this browser needs kept.
      const pending = await sessionForState(req, res, deps, deps.limits.requestsPerIp, { pending: { userId: user._id, amr: ['pwd'], at: currentDate() } });
      if (!pending) return loginPage(res, formCsrf(req, res, deps), requestId, { email, error: TOO_MANY_REQUESTS, status: 429 });
      return res.redirect(303, `${PAGES.secondFactor}${requestId ? `?request=${encodeURIComponent(requestId)}` : ''}`);
    }
    await signIn(req, res, user, ['pwd']);
    res.redirect(303, afterSignIn(requestId));
  });

  router.get(PAGES.secondFactor, async (req, res) => {
    const user = await pendingUser(req.kfSession);
    if (!user) return res.redirect(303, `${PAGES.login}${requestParam(req) ? `?request=${encodeURIComponent(requestParam(req)!)}` : ''}`);
    secondFactorPage(res, formCsrf(req, res, deps), requestParam(req), { passkeys: await hasPasskey(deps.store, user._id) });
  });

  router.post(PAGES.secondFactor, form, async (req, res) => {
    const session = req.kfSession;
    const requestId = requestParam(req);
    const user = await pendingUser(session);
    if (!session || !user || !hasValidCsrf(req, session)) return sendErrorPage(res, 400, 'Sign-in expired', 'Your sign-in expired. Please sign in again.');
    const code = CodeForm.parse(req.body).code?.slice(0, 40) ?? '';
    const passkeys = await hasPasskey(deps.store, user._id);
    const begun = await limits.beginSecondFactor(req, user._id);
    if (!begun.ok) return secondFactorPage(res, session.csrf, requestId, { error: begun.error, status: begun.status, passkeys });
    const result = await verifySecondFactorCode(deps, user, code);
    if (!result.ok) {
      await limits.failed(req, 'otp', user.email, 'bad code');
      return secondFactorPage(res, session.csrf, requestId, { error: 'That code is not valid. Try again.', status: 401, passkeys });
    }
    await begun.attempt.release();
    // Disabled while the second factor was pending.
    if (isDisabled(user)) {
      await limits.disabled(req, user, session.pending!.amr);
      return secondFactorPage(res, session.csrf, requestId, { error: ACCOUNT_DISABLED, status: 403, passkeys });
    }
    await signIn(req, res, user, [...session.pending!.amr, 'otp', 'mfa']);
    res.redirect(303, afterSignIn(requestId));
  });

  // Passkeys: JSON endpoints driven by /assets/webauthn.js.
  router.post(PAGES.loginPasskeyOptions, json, async (req, res) => {
    if (!hasValidCsrf(req, req.kfSession)) return res.status(403).json({ error: 'invalid_request', error_description: 'missing or wrong CSRF token' });
    // The ceremony's challenge is the first state this browser needs kept.
    const session = await sessionForState(req, res, deps, deps.limits.requestsPerIp);
    if (!session) return res.status(429).set('Cache-Control', 'no-store').json({ error: 'slow_down', error_description: TOO_MANY_REQUESTS });
    res.set('Cache-Control', 'no-store').json(await authenticationOptions(deps.store, rp, session, null));
  });

  router.post(PAGES.loginPasskey, json, async (req, res) => {
    const session = req.kfSession;
    if (!session || !hasValidCsrf(req, session)) return res.status(403).json({ error: 'invalid_request', error_description: 'missing or wrong CSRF token' });
    const begun = await limits.beginPasskey(req);
    if (!begun.ok) return res.status(begun.status).set('Cache-Control', 'no-store').json({ error: 'slow_down', error_description: begun.error });
    const passkey = await verifyPasskey(deps.store, rp, session, PasskeyAnswer.parse(req.body).response, null);
    const user = passkey && (await findUserById(deps.store, passkey.userId));
    if (!user) {
      await limits.failed(req, 'passkey', null, 'bad passkey');
      return res.status(401).json({ error: 'access_denied', error_description: 'That passkey could not be verified.' });
    }
    await begun.attempt.release();
    if (isDisabled(user)) {
      await limits.disabled(req, user, ['webauthn']);
      return disabledJson(res);
    }
    // A passkey with user verification is itself two factors (possession + PIN or biometrics).
    await signIn(req, res, user, ['webauthn', 'mfa']);
    res.json({ redirect: afterSignIn(requestParam(req)) });
  });

  router.post(PAGES.secondFactorPasskeyOptions, json, async (req, res) => {
    const session = req.kfSession;
    const user = await pendingUser(session);
    if (!session || !user || !hasValidCsrf(req, session))
      return res.status(403).json({ error: 'invalid_request', error_description: 'no sign-in in progress' });
    res.set('Cache-Control', 'no-store').json(await authenticationOptions(deps.store, rp, session, user));
  });

  router.post(PAGES.secondFactorPasskey, json, async (req, res) => {
    const session = req.kfSession;
    const user = await pendingUser(session);
    if (!session || !user || !hasValidCsrf(req, session))
      return res.status(403).json({ error: 'invalid_request', error_description: 'no sign-in in progress' });
    const begun = await limits.beginSecondFactor(req, user._id);
    if (!begun.ok) return res.status(begun.status).set('Cache-Control', 'no-store').json({ error: 'slow_down', error_description: begun.error });
    const passkey = await verifyPasskey(deps.store, rp, session, PasskeyAnswer.parse(req.body).response, user._id);
    if (!passkey) {
      await limits.failed(req, 'passkey', user.email, 'bad passkey');
      return res.status(401).json({ error: 'access_denied', error_description: 'That passkey could not be verified.' });
    }
    await begun.attempt.release();
    if (isDisabled(user)) {
      await limits.disabled(req, user, session.pending!.amr);
      return disabledJson(res);
    }
    await signIn(req, res, user, [...session.pending!.amr, 'webauthn', 'mfa']);
    res.json({ redirect: afterSignIn(requestParam(req)) });
  });

  return router;
}
