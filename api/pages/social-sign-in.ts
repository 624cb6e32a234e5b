// "Sign in with …": GET /login/source/:slug sends the browser to the upstream
// (state, nonce and PKCE verifier kept server-side, bound to this browser);
// GET /login/source/:slug/callback checks the answer (openid-client) and signs
// in, links or creates the account (lib/sources/linking.ts). A user with a
// second factor still passes it, on /login/second-factor. Linking from the
// account page starts here too, through POST /account/social/link/:slug.
import express, { Router, type Request, type Response } from 'express';
import type { OAuthSourceDoc } from '../../lib/model/oauth-sources.js';
import { ACCOUNT_DISABLED, isDisabled } from '../../lib/model/users.js';
import { findSourceBySlug, markSocialSignIn } from '../../lib/store/oauth-sources.js';
import { saveUpstreamLogin, takeUpstreamLogin } from '../../lib/store/upstream-logins.js';
import { resolveUpstreamAccount } from '../../lib/sources/linking.js';
import { authorizationRedirect, completeUpstreamSignIn, upstreamConfiguration } from '../../lib/sources/upstream.js';
import { outboundRefusal } from '../../lib/sources/upstream-fetch.js';
import { browserBinding, currentBrowserBinding } from '../http/browser-binding.js';
import { sessionForState, startSignedInSession } from '../http/session.js';
import { csrfGuard, signedInUser } from '../http/signed-in.js';
import { fieldsOf, text } from '../http/input.js';
import { sendErrorPage } from '../html/layout.js';
import { linkFromAccountPage } from '../views/social.js';
import { hasSecondFactor } from '../../lib/verification/second-factor.js';
import { afterSignIn, requestParam } from './login.js';
import { signInLimits } from '../sign-in-checks/sign-in-limits.js';
import type { ApiContext } from '../context.js';
import { PAGES } from '../paths.js';
import { currentDate } from '../../lib/runtime/clock.js';

export type SocialSignInDeps = Pick<ApiContext, 'store' | 'kek' | 'issuer' | 'secureCookies' | 'log' | 'limits' | 'outbound' | 'audit'>;

const CallbackQuery = fieldsOf({ state: text });
const FAILED = 'Sign-in failed';
const TOO_MANY_REQUESTS = 'Too many requests from your network. Wait a minute and try again.';

export function socialSignInRoutes(deps: SocialSignInDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '4kb' });
  const redirectUri = (source: OAuthSourceDoc) => `${deps.issuer}/login/source/${source.slug}/callback`;
  const limits = signInLimits(deps);

  async function enabledSource(req: Request, res: Response): Promise<OAuthSourceDoc | null> {
    const slug = String(req.params.slug ?? '');
    const source = slug.length <= 40 ? await findSourceBySlug(deps.store, slug) : null;
    if (source?.enabled) return source;
    sendErrorPage(res, 404, 'Not found', 'There is no such sign-in provider.');
    return null;
  }

  /** Sends the browser upstream; the checks wait server-side for the callback. */
  async function goUpstream(req: Request, res: Response, source: OAuthSourceDoc, resume: string | null, linkUserId: string | null) {
    let redirect;
    try {
      redirect = await authorizationRedirect(await upstreamConfiguration(deps.outbound, deps.kek, source), source, redirectUri(source));
    } catch (err) {
      deps.log.warn('upstream unavailable', { source: source.slug, error: (err as Error).name, outbound: outboundRefusal(err) });
      return sendErrorPage(res, 502, FAILED, `${source.name} cannot be reached right now. Try again later.`);
    }
    const browser = browserBinding(req, res, deps);
    await saveUpstreamLogin(deps.store, { sourceId: source._id, checks: redirect.checks, browser, resume, linkUserId });
    res.redirect(303, redirect.url.href);
  }

  router.get(`${PAGES.sourceSignIn}/:slug`, async (req, res) => {
    const source = await enabledSource(req, res);
    if (source) await goUpstream(req, res, source, requestParam(req), null);
  });

  router.post(`${PAGES.socialLink}/:slug`, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const source = await enabledSource(req, res);
    if (source) await goUpstream(req, res, source, PAGES.social, s.user._id);
  });

  router.get(`${PAGES.sourceSignIn}/:slug/callback`, async (req, res) => {
    const source = await enabledSource(req, res);
    if (!source) return;
    const state = CallbackQuery.parse(req.query).state;
    const login = state && state.length <= 200 ? await takeUpstreamLogin(deps.store, state) : null;
    // Unknown, used, expired, for another source or started in another browser: the same refusal.
    if (!login || login.sourceId !== source._id || login.browser !== currentBrowserBinding(req, deps)) {
      return sendErrorPage(res, 400, FAILED, 'This sign-in link is not valid (expired, already used, or started in another browser). Start again.');
    }
    const query = new URL(req.originalUrl, deps.issuer).search;
    let profile;
    try {
      profile = await completeUpstreamSignIn(
        await upstreamConfiguration(deps.outbound, deps.kek, source),
        source,
        new URL(`${redirectUri(source)}${query}`),
        login.checks,
      );
    } catch (err) {
      deps.log.warn('upstream sign-in refused', { source: source.slug, error: (err as Error).name, errorCode: (err as { code?: string }).code ?? '' });
      return sendErrorPage(res, 400, FAILED, `The answer from ${source.name} could not be verified, or the sign-in there was cancelled. Start again.`);
    }
    if (!profile) return sendErrorPage(res, 400, FAILED, `${source.name} did not say who you are. Start again.`);
    // A link asked from the account page must come back to the same signed-in user.
    if (login.linkUserId && req.kfSession?.userId !== login.linkUserId)
      return sendErrorPage(res, 400, FAILED, 'Sign in again, then link from your account page.');

    const outcome = await resolveUpstreamAccount(deps.store, source, profile, login.linkUserId);
    if (outcome.kind === 'refused') return sendErrorPage(res, 403, FAILED, outcome.reason);
    if (outcome.kind === 'link-from-account') return linkFromAccountPage(res, FAILED, outcome.reason);
    if (outcome.kind === 'linked') return res.redirect(303, `${PAGES.social}?linked=1`);
    const { user } = outcome;
    if (outcome.created) {
      await deps.audit.record('user.created', {
        actor: { type: 'user', userId: user._id },
        subject: { userId: user._id },
        data: { admin: user.role === 'admin', via: 'social' },
      });
    }
    if (isDisabled(user)) {
      await limits.disabled(req, user, ['fed']);
      return sendErrorPage(res, 403, FAILED, ACCOUNT_DISABLED);
    }
    await markSocialSignIn(deps.store, outcome.account._id);
    if (await hasSecondFactor(deps.store, user)) {
      const pending = await sessionForState(req, res, deps, deps.limits.requestsPerIp, { pending: { userId: user._id, amr: ['fed'], at: currentDate() } });
      if (!pending) return sendErrorPage(res, 429, FAILED, TOO_MANY_REQUESTS);
      return res.redirect(303, `${PAGES.secondFactor}${login.resume ? `?request=${encodeURIComponent(login.resume)}` : ''}`);
    }
    await startSignedInSession(req, res, deps, { userId: user._id, amr: ['fed'], acr: 'pwd' });
    deps.log.info('signed in', { user: user._id, amr: 'fed', source: source.slug });
    res.redirect(303, afterSignIn(login.resume));
  });

  return router;
}
