// /account/apps: the signed-in user's own applications in the browser — list,
// create (name, redirect URIs, public flag, signatures), edit, delete, rotate
// the secret. A new secret is shown once. CSRF on every form. The same app
// lifecycle as the app API (lib/accounts/app-lifecycle.ts).
// Editing an app (its redirect URIs, logout URIs) and a new secret need a
// recent sign-in: a browser left signed in must not be enough to hand an app over.
import express, { Router, type Request, type Response } from 'express';
import { ValidationError } from '../../lib/model/errors.js';
import type { ClientDoc } from '../../lib/model/clients.js';
import type { RedirectUriEntry } from '../../lib/model/redirect-uri.js';
import { accessTokenAlgOf, idTokenAlgOf, sensitiveChanges } from '../../lib/model/client-metadata.js';
import { signingNotes } from '../../lib/model/algorithm-notes.js';
import type { SigningAlg } from '../../lib/model/signing-keys.js';
import { findClient, listClientsByOwner } from '../../lib/store/clients.js';
import { createApp, deleteApp, rotateAppSecret, updateApp } from '../../lib/accounts/app-lifecycle.js';
import { html, type SafeHtml } from '../html/html.js';
import { appsPage as appsPageView, editPage, secretPage } from '../views/apps.js';
import { reauthUrl, signedInRecently } from '../http/recent-sign-in.js';
import { sessionActor } from '../../lib/webhooks/event-sources.js';
import { csrfGuard, signedInUser, type SignedIn } from '../http/signed-in.js';
import { fieldsOf, formText, raw } from '../http/input.js';
import type { ApiContext } from '../context.js';
import { PAGES } from '../paths.js';

/** `events`: app.created / app.updated / app.deleted go to the owner's webhooks. */
export type AppsPageDeps = Pick<ApiContext, 'store' | 'secureCookies' | 'flows' | 'events' | 'audit' | 'reauthMaxAgeMs' | 'config'>;

/** The app forms (create and edit): createClient and replaceClient check the values. */
const AppForm = fieldsOf({
  name: formText,
  description: formText,
  redirect_uris: formText,
  post_logout_redirect_uris: formText,
  backchannel_logout_uri: formText,
  public: raw,
  id_token_alg: formText,
  access_token_alg: formText,
});

/** The algorithms the form chose, each one this deployment offers; a ValidationError names a wrong one. */
function chosenAlgs(body: { id_token_alg: string; access_token_alg: string }, offered: readonly SigningAlg[], current?: ClientDoc) {
  const idToken = idTokenAlgOf(body.id_token_alg || current?.idTokenSignedResponseAlg, offered);
  const accessToken = accessTokenAlgOf(body.access_token_alg || null, offered);
  const problems = [idToken, accessToken].flatMap((r) => (r.ok ? [] : [r.description]));
  if (!idToken.ok || !accessToken.ok) throw new ValidationError(problems);
  return { idTokenSignedResponseAlg: idToken.alg, accessTokenSignedResponseAlg: accessToken.alg };
}

export function appsPageRoutes(deps: AppsPageDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '32kb' });

  /** True when the sign-in is recent enough; else the browser is sent to sign in again and come back to `returnTo`. */
  function recentOrReauth(req: Request, res: Response, s: SignedIn, returnTo: string): boolean {
    if (signedInRecently(s.session, deps.reauthMaxAgeMs)) return true;
    res.redirect(303, reauthUrl(returnTo));
    return false;
  }

  const offered = deps.config.idTokenAlgs;
  async function appsPage(res: Response, s: SignedIn, notice?: SafeHtml, status = 200): Promise<void> {
    appsPageView(res, s, await listClientsByOwner(deps.store, s.user._id), offered, notice, status);
  }

  router.get(PAGES.apps, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (s) await appsPage(res, s);
  });

  router.post(PAGES.apps, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const body = AppForm.parse(req.body);
    const redirects = lines(body.redirect_uris);
    const isPublic = body.public === '1';
    try {
      const { client, clientSecret } = await createApp(
        deps,
        {
          name: body.name,
          redirectUris: redirects.map((value) => ({ type: 'equals' as const, value })),
          public: isPublic,
          ownerUserId: s.user._id,
          ...chosenAlgs(body, offered),
        },
        sessionActor(s.user._id),
        'page',
      );
      secretPage(res, client.name, client._id, clientSecret, 'App created', signingNotes(client.idTokenSignedResponseAlg, 'page'));
    } catch (err) {
      if (err instanceof ValidationError) return appsPage(res, s, html`<p class="error" role="alert">${err.message}</p>`, 400);
      throw err;
    }
  });

  async function ownApp(id: string, userId: string) {
    const client = id.length <= 200 ? await findClient(deps.store, id) : null;
    return client && client.ownerUserId === userId ? client : null;
  }

  /** Redirect URI entries as lines: `https://…` (Equals), `wildcard: …`, `regex: …`. */
  function parseEntries(text: string): RedirectUriEntry[] {
    return lines(text).map((l) => {
      const m = /^(wildcard|regex):\s*(.+)$/.exec(l);
      return m ? { type: m[1] as 'wildcard' | 'regex', value: m[2]! } : { type: 'equals' as const, value: l };
    });
  }

  router.get(`${PAGES.apps}/:clientId/edit`, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s) return;
    const client = await ownApp(String(req.params.clientId), s.user._id);
    if (!client) return appsPage(res, s, html`<p class="error" role="alert">No such app.</p>`, 404);
    if (!recentOrReauth(req, res, s, `${PAGES.apps}/${client._id}/edit`)) return;
    editPage(res, s, client, offered);
  });

  router.post(`${PAGES.apps}/:clientId/edit`, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const client = await ownApp(String(req.params.clientId), s.user._id);
    if (!client) return appsPage(res, s, html`<p class="error" role="alert">No such app.</p>`, 404);
    const body = AppForm.parse(req.body);
    // Everything the form does not show is kept as it is.
    const {
      _id,
      secretHash: _s,
      createdAt: _c,
      updatedAt: _u,
      registrationTokenHash: _r,
      grantTypes: _g,
      responseTypes: _t,
      clientUri: _cu,
      logoUri: _l,
      policyUri: _p,
      tosUri: _tos,
      ...kept
    } = client;
    let input;
    try {
      input = {
        ...kept,
        name: body.name,
        description: body.description,
        redirectUris: parseEntries(body.redirect_uris),
        postLogoutRedirectUris: lines(body.post_logout_redirect_uris),
        backchannelLogoutUri: body.backchannel_logout_uri.trim() || null,
        ...chosenAlgs(body, offered, client),
      };
    } catch (err) {
      if (err instanceof ValidationError) return editPage(res, s, client, offered, html`<p class="error" role="alert">${err.message}</p>`, 400);
      throw err;
    }
    if (sensitiveChanges(client, input).length > 0 && !recentOrReauth(req, res, s, `${PAGES.apps}/${client._id}/edit`)) return;
    try {
      await updateApp(deps, client, input, sessionActor(s.user._id));
      res.redirect(303, PAGES.apps);
    } catch (err) {
      if (err instanceof ValidationError) return editPage(res, s, client, offered, html`<p class="error" role="alert">${err.message}</p>`, 400);
      throw err;
    }
  });

  router.post(`${PAGES.apps}/:clientId/delete`, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const client = await ownApp(String(req.params.clientId), s.user._id);
    if (!client) return appsPage(res, s, html`<p class="error" role="alert">No such app.</p>`, 404);
    await deleteApp(deps, client, sessionActor(s.user._id));
    res.redirect(303, PAGES.apps);
  });

  router.post(`${PAGES.apps}/:clientId/secret`, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const client = await ownApp(String(req.params.clientId), s.user._id);
    if (!client) return appsPage(res, s, html`<p class="error" role="alert">No such app.</p>`, 404);
    if (!recentOrReauth(req, res, s, PAGES.apps)) return;
    const secret = await rotateAppSecret(deps, client, sessionActor(s.user._id));
    if (!secret) return appsPage(res, s, html`<p class="error" role="alert">This app does not use a client secret.</p>`, 400);
    secretPage(res, client.name, client._id, secret, 'New client secret');
  });

  return router;
}

function lines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
}
