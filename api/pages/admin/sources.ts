// /admin/sources: a site admin lists, adds, edits and removes OAuth sources
// through lib/sources/source-changes.ts (the admin API's and CLI's changes and
// events). The form's fields become the API's JSON body; the client secret
// is sent only when typed (or removed by its checkbox).
import { Router, type Request, type Response } from 'express';
import { NotFoundError, ValidationError } from '../../../lib/model/errors.js';
import type { OAuthSourceDoc } from '../../../lib/model/oauth-sources.js';
import { createSource, removeSource, updateSource } from '../../../lib/sources/source-changes.js';
import { findSource, listSources } from '../../../lib/store/oauth-sources.js';
import { sessionActor } from '../../../lib/webhooks/event-sources.js';
import type { SafeHtml } from '../../html/html.js';
import { sendErrorPage } from '../../html/layout.js';
import { fieldsOf, formText } from '../../http/input.js';
import { adminSourcePage, adminSourcePath, adminSourcesPage, draftOf, NEW_SOURCE, type SourceDraft } from '../../views/admin/sources.js';
import { adminForm, adminOf, type AdminConsoleDeps } from './admin-page.js';
import { ADMIN_PAGES } from '../../paths.js';

const SourceForm = fieldsOf({
  name: formText,
  slug: formText,
  kind: formText,
  issuer: formText,
  authorization_endpoint: formText,
  token_endpoint: formText,
  userinfo_endpoint: formText,
  client_id: formText,
  client_secret: formText,
  remove_secret: formText,
  scopes: formText,
  allow_sign_up: formText,
  link_by_verified_email: formText,
  enabled: formText,
});
const RemoveForm = fieldsOf({ confirm: formText });

/** What was sent, as the form shows it again (never the secret). */
function draftFrom(req: Request): SourceDraft {
  const f = SourceForm.parse(req.body);
  return {
    name: f.name,
    slug: f.slug.trim(),
    kind: f.kind,
    issuer: f.issuer.trim(),
    authorization_endpoint: f.authorization_endpoint.trim(),
    token_endpoint: f.token_endpoint.trim(),
    userinfo_endpoint: f.userinfo_endpoint.trim(),
    client_id: f.client_id.trim(),
    scopes: f.scopes,
    allow_sign_up: f.allow_sign_up === '1',
    link_by_verified_email: f.link_by_verified_email === '1',
    enabled: f.enabled === '1',
  };
}

/** The API's body for a draft: an empty URL is none. */
function bodyOf(d: SourceDraft): Record<string, unknown> {
  const url = (v: string) => (v === '' ? null : v);
  return {
    ...d,
    issuer: url(d.issuer),
    authorization_endpoint: url(d.authorization_endpoint),
    token_endpoint: url(d.token_endpoint),
    userinfo_endpoint: url(d.userinfo_endpoint),
    scopes: d.scopes.split(' ').filter((s) => s !== ''),
  };
}

/** The secret part of a change: a typed one replaces, the checkbox removes, neither keeps it (absent). */
function secretOf(req: Request, creating: boolean): { client_secret?: string | null } {
  const { client_secret, remove_secret } = SourceForm.parse(req.body);
  if (client_secret !== '') return { client_secret };
  return creating || remove_secret === '1' ? { client_secret: null } : {};
}

export function adminSourcesRoutes(deps: AdminConsoleDeps): Router {
  const router = Router();
  const actor = (req: Request) => sessionActor(adminOf(req).user._id);

  async function list(req: Request, res: Response, draft: SourceDraft, notice?: SafeHtml, status = 200): Promise<void> {
    adminSourcesPage(res, adminOf(req).session.csrf, await listSources(deps.store), draft, notice, status);
  }

  /** The source of the path, or null (a longer id is not looked up). */
  async function named(req: Request): Promise<OAuthSourceDoc | null> {
    const id = String(req.params.id);
    return id.length <= 100 ? findSource(deps.store, id) : null;
  }

  async function edit(req: Request, res: Response, draft: (s: OAuthSourceDoc) => SourceDraft, notice?: SafeHtml, status = 200): Promise<void> {
    const source = await named(req);
    if (!source) return sendErrorPage(res, 404, 'Not found', 'There is no such OAuth source.');
    adminSourcePage(res, adminOf(req).session.csrf, source, draft(source), notice, status);
  }

  async function existing(req: Request): Promise<OAuthSourceDoc> {
    const source = await named(req);
    if (!source) throw new NotFoundError('no such OAuth source');
    return source;
  }

  router.get(ADMIN_PAGES.sources, (req, res) => list(req, res, NEW_SOURCE));
  adminForm(
    router,
    deps,
    ADMIN_PAGES.sources,
    () => ADMIN_PAGES.sources,
    async (req) => {
      await createSource(deps, { ...bodyOf(draftFrom(req)), ...secretOf(req, true) }, actor(req));
    },
    (req, res, notice, status) => list(req, res, draftFrom(req), notice, status),
  );

  const one = `${ADMIN_PAGES.sources}/:id`;
  const page = (req: Request) => adminSourcePath(String(req.params.id));
  router.get(one, (req, res) => edit(req, res, draftOf));
  adminForm(
    router,
    deps,
    one,
    page,
    async (req) => {
      await updateSource(deps, await existing(req), { ...bodyOf(draftFrom(req)), ...secretOf(req, false) }, actor(req));
    },
    (req, res, notice, status) => edit(req, res, () => draftFrom(req), notice, status),
  );
  adminForm(
    router,
    deps,
    `${one}/delete`,
    page,
    async (req) => {
      const source = await existing(req);
      if (RemoveForm.parse(req.body).confirm.trim() !== source.slug)
        throw new ValidationError([`type the slug ${source.slug} to remove the source; nothing was removed`]);
      await removeSource(deps, source, actor(req));
      return ADMIN_PAGES.sources;
    },
    (req, res, notice, status) => edit(req, res, draftOf, notice, status),
  );
  return router;
}
