// The one way an authorization response reaches the client, once its redirect
// URI is trusted: the code, the implicit flow's tokens or an error, with
// `state` and `iss` (RFC 9207), in the request's response mode. `query`: a 303
// to the redirect URI. `fragment` (OAuth 2.0 Multiple Response Type Encoding
// Practices §2.1): a 303 to the redirect URI with the parameters in its
// fragment, which the browser keeps and never sends to the client's server.
// `form_post` (OAuth 2.0 Form Post Response Mode): a page whose form posts the
// parameters to the redirect URI and submits itself. In a JWT mode (JARM:
// `query.jwt`, `fragment.jwt`, `form_post.jwt`) the parameters, `iss` among
// them, go inside a JWT signed with the client's
// authorization_signed_response_alg (lib/model/jwt-response.ts), which
// travels the same way as the one parameter `response`.
//
// `iss` goes with the implicit flow's answers too: the ID token names the
// issuer as well, but an error has no ID token, and discovery's
// authorization_response_iss_parameter_supported promises it on every answer.
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { buildRedirect } from '../../../lib/model/authorization-request.js';
import { authorizationResponseAlg, jwtResponseClaims } from '../../../lib/model/jwt-response.js';
import { isJwtResponseMode, type ResponseMode, type ResponseTarget } from '../../../lib/model/response-mode.js';
import { currentTimeMs } from '../../../lib/runtime/clock.js';
import { html, raw } from '../../html/html.js';
import type { ImplicitResponse } from '../../../lib/grants/implicit-issuance.js';
import type { ApiContext } from '../../context.js';

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

/** The issuer (`iss`); for a JWT mode, the client (its registered algorithm) and the signer. */
export type ResponseDeps = Pick<ApiContext, 'issuer' | 'signer' | 'findClient'>;

/** The way a JWT mode's `response` parameter travels. */
const CARRIER: Record<ResponseMode, 'query' | 'fragment' | 'form_post'> = {
  query: 'query',
  fragment: 'fragment',
  form_post: 'form_post',
  'query.jwt': 'query',
  'fragment.jwt': 'fragment',
  'form_post.jwt': 'form_post',
};

/**
 * The response JWT of `params` for the client `clientId`, with the algorithm it
 * registered; a client no longer found (deactivated while its user was on a
 * page) gets the default one.
 */
async function responseJwt(deps: ResponseDeps, clientId: string, params: Params): Promise<string> {
  const client = await deps.findClient(clientId);
  return deps.signer.sign(jwtResponseClaims(deps.issuer, clientId, params, currentTimeMs()), { alg: authorizationResponseAlg(client), client: client ?? {} });
}

/**
 * Answers the client at `to.redirectUri`: `code`, the implicit flow's tokens,
 * or `error` + `error_description`; then `state` (when the request had one) and
 * `iss`; in a JWT mode, all of them in the one parameter `response`.
 */
export async function sendAuthorizationResponse(res: Response, deps: ResponseDeps, to: ResponseTarget, response: AuthorizationResponse): Promise<void> {
  const plain: Params = { ...response, state: to.state, iss: deps.issuer };
  const params: Params = isJwtResponseMode(to.responseMode) ? { response: await responseJwt(deps, to.clientId, plain) } : plain;
  const carrier = CARRIER[to.responseMode ?? 'query'];
  if (carrier === 'form_post') return sendFormPost(res, to.redirectUri, params);
  // Its Location may carry tokens: no cache keeps it.
  if (carrier === 'fragment') return void res.set('Cache-Control', 'no-store').redirect(303, fragmentRedirect(to.redirectUri, params));
  res.redirect(303, buildRedirect(to.redirectUri, params));
}
