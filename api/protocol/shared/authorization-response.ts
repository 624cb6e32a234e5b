// The one way an authorization response reaches the client, once its redirect
// URI is trusted: the code, the implicit flow's tokens or an error, with
// `state` and `iss` (RFC 9207), in the request's response mode. `query`: a 303
// to the redirect URI. `fragment` (OAuth 2.0 Multiple Response Type Encoding
// Practices §2.1): a 303 to the redirect URI with the parameters in its
// fragment, which the browser keeps and never sends to the client's server.
// `form_post` (OAuth 2.0 Form Post Response Mode): a page whose form posts the
// parameters to the redirect URI and submits itself.
//
// `iss` goes with the implicit flow's answers too: the ID token names the
// issuer as well, but an error has no ID token, and discovery's
// authorization_response_iss_parameter_supported promises it on every answer.
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { buildRedirect } from '../../../lib/domain/authorization-request.js';
import type { ResponseTarget } from '../../../lib/domain/response-mode.js';
import { html, raw } from '../../html/html.js';
import type { ImplicitResponse } from '../../../lib/grants/implicit-issuance.js';

export type AuthorizationResponse = { code: string } | ImplicitResponse | { error: string; error_description: string };

/** The form_post page's only script, allowed by its hash: no nonce to mint, nothing else can run. */
const AUTO_SUBMIT = 'document.forms[0].submit();';
const AUTO_SUBMIT_HASH = `'sha256-${createHash('sha256').update(AUTO_SUBMIT).digest('base64')}'`;

/**
 * The page runs its one script and loads nothing. `form-action` is left out,
 * as on every Keyflow page: Chrome applies it to the redirects that follow a
 * submission too, and the RP's callback may redirect anywhere it likes. The
 * page's only form is Keyflow's own, with escaped values.
 */
const FORM_POST_CSP = `default-src 'none'; script-src ${AUTO_SUBMIT_HASH}; base-uri 'none'; frame-ancestors 'none'`;

type Params = Record<string, string | null | undefined>;

function sendFormPost(res: Response, redirectUri: string, params: Params): void {
  const fields = Object.entries(params).filter((e): e is [string, string] => e[1] !== null && e[1] !== undefined);
  res
    .status(200)
    // The code or tokens must not be cached, nor the page's address (Keyflow's) leak as a Referer.
    .set({ 'Content-Security-Policy': FORM_POST_CSP, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' })
    .type('html')
    .send(
      html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Continue · Keyflow</title>
</head>
<body>
<form method="post" action="${redirectUri}">
${fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<p>Keyflow is sending you back to ${new URL(redirectUri).host}.</p>
<button type="submit">Continue</button>
</form>
<script>${raw(AUTO_SUBMIT)}</script>
</body>
</html>`.value,
    );
}

/** `redirectUri` with `params` (null and undefined ones left out) form-encoded as its fragment; a redirect URI has none of its own. */
function fragmentRedirect(redirectUri: string, params: Params): string {
  const url = new URL(redirectUri);
  url.hash = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== null && e[1] !== undefined)).toString();
  return url.href;
}

/**
 * Answers the client at `to.redirectUri`: `code`, the implicit flow's tokens,
 * or `error` + `error_description`; then `state` (when the request had one) and `iss`.
 */
export function sendAuthorizationResponse(res: Response, issuer: string, to: ResponseTarget, response: AuthorizationResponse): void {
  const params: Params = { ...response, state: to.state, iss: issuer };
  if (to.responseMode === 'form_post') return sendFormPost(res, to.redirectUri, params);
  // Its Location may carry tokens: no cache keeps it.
  if (to.responseMode === 'fragment') return void res.set('Cache-Control', 'no-store').redirect(303, fragmentRedirect(to.redirectUri, params));
  res.redirect(303, buildRedirect(to.redirectUri, params));
}
