// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0):
// GET or POST /api/oauth/end_session. The id_token_hint must be an ID token
// Keyflow issued to an existing client (the `client_id`, if sent, agreeing).
// A GET always asks the signed-in user to confirm: a link alone never signs
// anyone out, hint or not (ID tokens are handed to RPs, and from there may
// leak). A POST with a valid hint for the signed-in user signs out at once; a
// POST without the session cookie (cross-site) is sent on as a GET. Then: redirect to a registered post_logout_redirect_uri (exact match) with
// `state`, or Keyflow's signed-out page.
import express, { Router, type Request, type Response } from 'express';
import { verifyOwnJwt } from '../../lib/keys/verifier.js';
import { buildRedirect } from '../../lib/model/authorization-request.js';
import { isIdToken } from '../../lib/model/claims.js';
import { html } from '../html/html.js';
import { csrfField, sendErrorPage, sendPage } from '../html/layout.js';
import { hasValidCsrf } from '../http/session.js';
import { signedOutPage } from '../views/login.js';
import { signOut, type SignOutDeps } from '../http/sign-out.js';
import { z } from 'zod';
import { fieldsOf, raw } from '../http/input.js';
import type { ApiContext } from '../context.js';
import { ENDPOINTS, PAGES } from '../paths.js';

export type EndSessionDeps = SignOutDeps & Pick<ApiContext, 'keyring' | 'findClient'>;

/** A parameter taken only as one string of at most 8 KiB; anything else reads as absent. */
const param = z.string().max(8192).optional().catch(undefined);

/** RP-initiated logout's parameters (query or form); a parameter that is not one string is ignored, as if absent. */
const EndSessionRequest = fieldsOf({ id_token_hint: param, post_logout_redirect_uri: param, state: param, client_id: param, confirm: raw });

export function endSessionRoutes(deps: EndSessionDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '32kb' });

  const handle = async (req: Request, res: Response) => {
    const params = EndSessionRequest.parse(req.method === 'POST' ? req.body : req.query);
    const hint = params.id_token_hint;
    const postLogout = params.post_logout_redirect_uri;
    const state = params.state;
    let clientId = params.client_id;
    let hintSub: string | undefined;

    if (hint) {
      // Signature, issuer and the ID token's shape must be right; an expired ID token is accepted (its purpose is over).
      const jwt = await verifyOwnJwt(deps.keyring, hint);
      if (!jwt || !isIdToken(jwt.header, jwt.claims, deps.issuer)) {
        return sendErrorPage(res, 400, 'Sign-out failed', 'The id_token_hint is not an ID token issued by Keyflow.');
      }
      const aud = jwt.claims.aud as string;
      if (clientId && aud !== clientId) return sendErrorPage(res, 400, 'Sign-out failed', 'client_id does not match the id_token_hint.');
      if (!(await deps.findClient(aud))) return sendErrorPage(res, 400, 'Sign-out failed', 'The id_token_hint was not issued to an application of this site.');
      clientId = aud;
      hintSub = jwt.claims.sub as string;
    }
    const client = clientId ? await deps.findClient(clientId) : null;
    const redirect = postLogout && client?.postLogoutRedirectUris.includes(postLogout) ? buildRedirect(postLogout, { state }) : null;

    // A POST from an RP's page is cross-site, so the SameSite=Lax session cookie does not
    // come with it: a signed-in browser would look signed out and be told so. The same
    // request as a top-level GET carries the cookie (and asks the user to confirm).
    if (req.method === 'POST' && !req.kfSession) {
      const asGet = Object.entries({ id_token_hint: hint, client_id: params.client_id, post_logout_redirect_uri: postLogout, state }).filter(
        (e): e is [string, string] => e[1] !== undefined,
      );
      return res.redirect(303, `${ENDPOINTS.endSession}?${new URLSearchParams(asGet).toString()}`);
    }

    const session = req.kfSession;
    if (session?.userId) {
      const confirmed = req.method === 'POST' && params.confirm === 'yes' && hasValidCsrf(req, session);
      const hinted = req.method === 'POST' && hintSub === session.userId;
      if (!confirmed && !hinted) {
        return sendPage(res, {
          title: 'Sign out?',
          body: html`<h1>Sign out of Keyflow?</h1>
${client ? html`<p>${client.name} asks to sign you out.</p>` : ''}
<form method="post" action="${ENDPOINTS.endSession}">
${csrfField(session.csrf)}
<input type="hidden" name="confirm" value="yes">
${hint ? html`<input type="hidden" name="id_token_hint" value="${hint}">` : ''}
${clientId ? html`<input type="hidden" name="client_id" value="${clientId}">` : ''}
${postLogout ? html`<input type="hidden" name="post_logout_redirect_uri" value="${postLogout}">` : ''}
${state ? html`<input type="hidden" name="state" value="${state}">` : ''}
<button type="submit">Sign out</button>
</form>
<p><a href="${PAGES.account}">Stay signed in</a></p>`,
        });
      }
      // The RP is named only when the request named one (a verified hint, or client_id).
      await signOut(req, res, deps, client?._id);
    }
    if (redirect) return res.redirect(303, redirect);
    signedOutPage(res);
  };

  router.get(ENDPOINTS.endSession, handle);
  router.post(ENDPOINTS.endSession, form, handle);
  return router;
}
