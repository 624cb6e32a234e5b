// The one way an authorization response reaches the client, once its redirect
// URI is trusted: the code or an error, with `state` and `iss` (RFC 9207), in
// the request's response mode. `query`: a 303 to the redirect URI. `form_post`
// (OAuth 2.0 Form Post Response Mode): a page whose form posts the parameters
// to the redirect URI and submits itself.
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { buildRedirect } from '../../lib/domain/authorization-request.js';
import type { ResponseTarget } from '../../lib/domain/response-mode.js';
import { html, raw } from '../html/html.js';

export type AuthorizationResponse = { code: string } | { error: string; error_description: string };

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

function sendFormPost(res: Response, redirectUri: string, params: Record<string, string | null>): void {
  const fields = Object.entries(params).filter((e): e is [string, string] => e[1] !== null);
  res
    .status(200)
    // The code must not be cached, nor the page's address (Keyflow's) leak as a Referer.
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

/** Answers the client at `to.redirectUri`: `code` or `error` + `error_description`, then `state` (when the request had one) and `iss`. */
export function sendAuthorizationResponse(res: Response, issuer: string, to: ResponseTarget, response: AuthorizationResponse): void {
  const params = { ...response, state: to.state, iss: issuer };
  if (to.responseMode === 'form_post') return sendFormPost(res, to.redirectUri, params);
  res.redirect(303, buildRedirect(to.redirectUri, params));
}
