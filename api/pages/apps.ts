// /account/apps: the signed-in user's own applications in the browser — list,
// create (name, redirect URIs, public flag), delete, rotate the secret. A new
// secret is shown once. CSRF on every form. Same store operations as the app API.
import express, { Router, type Response } from 'express';
import { ValidationError } from '../../domain/errors.js';
import { createClient, deleteClient, findClient, listClientsByOwner, rotateClientSecret } from '../../store/clients.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import type { SessionDeps } from '../http/session.js';
import { csrfGuard, signedInUser, type SignedIn } from './tokens.js';

export function appsPageRoutes(deps: SessionDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '32kb' });

  async function appsPage(res: Response, { session, user }: SignedIn, notice?: SafeHtml, status = 200) {
    const apps = await listClientsByOwner(deps.store, user._id);
    sendPage(res, {
      title: 'Your apps',
      status,
      body: html`<h1>Your apps</h1>
${notice ?? ''}
${apps.length === 0 ? html`<p class="muted">No apps yet.</p>` : ''}
<ul>${apps.map(
        (a) => html`<li><strong>${a.name}</strong> ${a.isVerified ? html`<span class="badge">Verified</span>` : ''}
<p><span class="muted">client_id</span> <code>${a._id}</code> <span class="muted">${a.public ? 'public' : a.tokenEndpointAuthMethod}</span></p>
<p class="muted">${a.redirectUris.map((r) => `${r.type === 'equals' ? '' : `${r.type}: `}${r.value}`).join(', ') || 'no redirect URI yet (the first one used is learned)'}</p>
${a.secretHash ? html`<form class="inline" method="post" action="/account/apps/${a._id}/secret">${csrfField(session.csrf)}<button type="submit" class="secondary">New secret</button></form>` : ''}
<form class="inline" method="post" action="/account/apps/${a._id}/delete">${csrfField(session.csrf)}<button type="submit" class="secondary">Delete</button></form></li>`,
      )}</ul>
<section><h2>New app</h2>
<form method="post" action="/account/apps">
${csrfField(session.csrf)}
<label for="app-name">Name</label>
<input id="app-name" name="name" type="text" maxlength="200" required>
<label for="app-redirects">Redirect URIs (one per line)</label>
<textarea id="app-redirects" name="redirect_uris" rows="3" placeholder="https://app.example/callback"></textarea>
<label><input type="checkbox" name="public" value="1"> Public client (no secret; PKCE)</label>
<button type="submit">Create app</button>
</form>
</section>
<p><a href="/account">Back to your account</a></p>`,
    });
  }

  function secretPage(res: Response, name: string, clientId: string, secret: string | null, title: string) {
    sendPage(res, {
      title,
      body: html`<h1>${title}</h1>
<p><strong>${name}</strong></p>
<p><span class="muted">client_id</span> <code data-client-id>${clientId}</code></p>
${secret ? html`<p>Client secret — copy it now, it is shown only once:</p><p><code class="secret" data-client-secret>${secret}</code></p>` : html`<p>A public client has no secret.</p>`}
<p><a href="/account/apps">Done</a></p>`,
    });
  }

  router.get('/account/apps', async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (s) await appsPage(res, s);
  });

  router.post('/account/apps', form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const body = req.body as Record<string, unknown>;
    const redirects = String(body.redirect_uris ?? '')
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    const isPublic = body.public === '1';
    try {
      const { client, clientSecret } = await createClient(deps.store, {
        name: String(body.name ?? ''),
        redirectUris: redirects.map((value) => ({ type: 'equals' as const, value })),
        public: isPublic,
        ownerUserId: s.user._id,
      });
      secretPage(res, client.name, client._id, clientSecret, 'App created');
    } catch (err) {
      if (err instanceof ValidationError) return appsPage(res, s, html`<p class="error" role="alert">${err.message}</p>`, 400);
      throw err;
    }
  });

  async function ownApp(id: string, userId: string) {
    const client = id.length <= 200 ? await findClient(deps.store, id) : null;
    return client && client.ownerUserId === userId ? client : null;
  }

  router.post('/account/apps/:clientId/delete', form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const client = await ownApp(String(req.params.clientId), s.user._id);
    if (!client) return appsPage(res, s, html`<p class="error" role="alert">No such app.</p>`, 404);
    await deleteClient(deps.store, client._id);
    res.redirect(303, '/account/apps');
  });

  router.post('/account/apps/:clientId/secret', form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const client = await ownApp(String(req.params.clientId), s.user._id);
    if (!client) return appsPage(res, s, html`<p class="error" role="alert">No such app.</p>`, 404);
    const secret = await rotateClientSecret(deps.store, client);
    if (!secret) return appsPage(res, s, html`<p class="error" role="alert">This app does not use a client secret.</p>`, 400);
    secretPage(res, client.name, client._id, secret, 'New client secret');
  });

  return router;
}
