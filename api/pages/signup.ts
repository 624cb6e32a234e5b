// /signup: a new account (email, optional username, name, password twice),
// then signed in and sent to /account or the `request`/`next` it came with
// (validated as at /login). Who may sign up is the site setting
// `registration`: `open` (anyone; an invitation link still gives its role),
// `invite` (only with a usable invitation, `?invite=` kept in a hidden field),
// `closed` (nobody, invitations included). The form is CSRF-protected like
// /login before any session exists (the anonymous double-submit token).
//
// Every POST with a valid CSRF token takes a slot, before anything else is
// checked (store/rate-limits.ts): per client address SIGNIN_LIMIT_PER_IP and
// site-wide SIGNIN_LIMIT_GLOBAL per 15 minutes, counted apart from sign-ins.
// An invitation with an email gives a verified email (the admin vouched for
// that address); other sign-ups start unverified.
import express, { Router, type Request, type Response } from 'express';
import { inviteRefusal, storeSignUp } from '../../lib/admin/invite-changes.js';
import { looksLikeInviteToken, type InviteDoc } from '../../lib/model/invites.js';
import { ValidationError } from '../../lib/model/errors.js';
import { newUserAccount, type UserDoc } from '../../lib/model/users.js';
import type { SiteSettings } from '../../lib/model/site-settings.js';
import { passwordProblem } from '../../lib/security/password-policy.js';
import { findInviteByToken } from '../../lib/store/invites.js';
import { takeAttempts } from '../../lib/store/rate-limits.js';
import { getSiteSettings } from '../../lib/store/settings.js';
import { formCsrf, hasValidCsrf, startSignedInSession } from '../http/session.js';
import { clientAddress } from '../http/request-limits.js';
import { fieldsOf, formText, text } from '../http/input.js';
import { signupPage, signupRefusedPage, type SignupFormOptions } from '../views/signup.js';
import { afterSignIn, requestParam } from './login.js';
import type { ApiContext } from '../context.js';
import { PAGES } from '../paths.js';

export type SignupDeps = Pick<ApiContext, 'store' | 'log' | 'limits' | 'secureCookies' | 'audit'>;

export const SIGN_UP_WINDOW_MS = 15 * 60_000;
const TOO_MANY = 'Too many sign-up attempts. Wait 15 minutes and try again.';
const CLOSED = 'This site does not accept new accounts.';
const INVITE_ONLY = 'Accounts on this site are created by invitation only. Ask an administrator for an invitation link.';

const InviteField = fieldsOf({ invite: text });
const SignupFields = fieldsOf({ email: formText, username: formText, name: formText, password: formText, confirm: formText });

/** Who may sign up with this request: the invitation it carries (null: none), or why nobody may. */
type Admission = { ok: true; invite: InviteDoc | null } | { ok: false; status: number; message: string; openSignup: boolean };

async function admission(deps: SignupDeps, settings: SiteSettings, token: string | undefined): Promise<Admission> {
  const mode = settings.registration;
  if (mode === 'closed') return { ok: false, status: 403, message: CLOSED, openSignup: false };
  if (token === undefined || token === '')
    return mode === 'open' ? { ok: true, invite: null } : { ok: false, status: 403, message: INVITE_ONLY, openSignup: false };
  const invite = looksLikeInviteToken(token) ? await findInviteByToken(deps.store, token) : null;
  const refusal = inviteRefusal(invite);
  return refusal ? { ok: false, status: 403, message: refusal, openSignup: mode === 'open' } : { ok: true, invite };
}

/** What is wrong with the form, in plain sentences (an invitation with an email must be signed up with that email). */
async function formProblems(f: { email: string; name: string; password: string; confirm: string }, invite: InviteDoc | null): Promise<string[]> {
  const problems: string[] = [];
  if (f.name === '') problems.push('Enter your name.');
  if (invite?.email && f.email !== invite.email) problems.push('This invitation is for a different email address.');
  if (f.password !== f.confirm) problems.push('The two passwords are not the same.');
  const problem = await passwordProblem(f.password, f.email);
  if (problem) problems.push(`The password ${problem}.`);
  return problems;
}

export function signupRoutes(deps: SignupDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const address: (req: Request) => string = (req) => `sign-up-ip:${clientAddress(req)}`;

  /** The form; the link's token is carried on even when the invitation was not looked up (an expired CSRF token). */
  function showForm(req: Request, res: Response, invite: InviteDoc | null, token: string | undefined, opts: Partial<SignupFormOptions> = {}) {
    const carried = looksLikeInviteToken(token) ? token : null;
    signupPage(res, formCsrf(req, res, deps), { invite: carried, requestId: requestParam(req), fixedEmail: invite?.email ?? null, ...opts });
  }

  router.get(PAGES.signup, async (req, res) => {
    const token = InviteField.parse(req.query).invite;
    const admitted = await admission(deps, await getSiteSettings(deps.store), token);
    if (!admitted.ok) return signupRefusedPage(res, admitted.status, admitted.message, admitted);
    showForm(req, res, admitted.invite, token);
  });

  router.post(PAGES.signup, form, async (req, res) => {
    const token = InviteField.parse(req.body).invite;
    const f = SignupFields.parse(req.body);
    const values = { email: f.email.trim().toLowerCase(), username: f.username.trim().toLowerCase(), name: f.name.trim() };
    if (!hasValidCsrf(req, req.kfSession)) return showForm(req, res, null, token, { values, errors: ['Your session expired. Please try again.'], status: 400 });
    const limit = await takeAttempts(deps.store, [
      [address(req), { max: deps.limits.signInPerIp, windowMs: SIGN_UP_WINDOW_MS }],
      ['sign-up-global', { max: deps.limits.signInGlobal, windowMs: SIGN_UP_WINDOW_MS }],
    ]);
    if (!limit.allowed) return signupRefusedPage(res.set('Retry-After', String(limit.retryAfter)), 429, TOO_MANY);
    const admitted = await admission(deps, await getSiteSettings(deps.store), token);
    if (!admitted.ok) return signupRefusedPage(res, admitted.status, admitted.message, admitted);
    const { invite } = admitted;
    const again = (errors: string[], status: number) => showForm(req, res, invite, token, { values, errors, status });

    const problems = await formProblems({ email: values.email, name: values.name, password: f.password, confirm: f.confirm }, invite);
    if (problems.length) return again(problems, 400);
    let user: UserDoc;
    try {
      user = await newUserAccount({
        email: values.email,
        password: f.password,
        name: values.name,
        username: values.username || undefined,
        admin: invite?.role === 'admin',
      });
    } catch (err) {
      if (err instanceof ValidationError) return again(err.problems, 400);
      throw err;
    }
    // Verified only when the admin named this address in the invitation.
    user = { ...user, emailVerified: invite?.email === user.email };
    let result = await storeSignUp(deps.store, user, invite);
    // A username made from the email that someone already has: once more with a random suffix.
    if (!result.ok && 'taken' in result && result.taken === 'username' && !values.username) {
      user = { ...user, username: `${user.username.slice(0, 56)}-${user._id.slice(0, 6)}` };
      result = await storeSignUp(deps.store, user, invite);
    }
    if (!result.ok) {
      if ('refusal' in result) return signupRefusedPage(res, 403, result.refusal);
      return again([result.taken === 'email' ? 'An account with this email address already exists. Sign in instead.' : 'That username is taken.'], 409);
    }
    await deps.audit.record('user.created', {
      actor: { type: 'user', userId: user._id },
      subject: { userId: user._id },
      data: { admin: user.role === 'admin', via: invite ? 'invite' : 'signup' },
    });
    await startSignedInSession(req, res, deps, { userId: user._id, amr: ['pwd'], acr: 'pwd' });
    deps.log.info('signed up', { user: user._id, invite: invite?._id });
    res.redirect(303, afterSignIn(requestParam(req)));
  });

  return router;
}
