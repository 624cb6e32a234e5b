// /admin/invites: a site admin lists sign-up invites, creates one and revokes
// one through lib/admin/invite-changes.ts (the admin API's and CLI's changes
// and events). The new link is in the answer to the creating POST only: that
// page is rendered there (never cached, never redirected to), and the link is
// kept nowhere, so a reload of the list cannot show it again.
import express, { Router, type Request, type Response } from 'express';
import { createInvite, namedInvite, revokeInvite } from '../../../lib/admin/invite-changes.js';
import { refusalStatus } from '../../../lib/model/errors.js';
import { listInvites } from '../../../lib/store/invites.js';
import { sessionActor } from '../../../lib/webhooks/event-sources.js';
import type { SafeHtml } from '../../html/html.js';
import { sendErrorPage } from '../../html/layout.js';
import { fieldsOf, formText } from '../../http/input.js';
import { hasValidCsrf, requireRecentSignIn } from '../../http/session.js';
import type { ApiContext } from '../../context.js';
import { adminInvitesPage, NEW_INVITE, type InviteDraft } from '../../views/admin/invites.js';
import { errorNotice } from '../../views/teams.js';
import { adminForm, adminOf, offsetOf, PAGE_SIZE, type AdminConsoleDeps } from './admin-page.js';
import { doneAt, doneNotice } from '../../http/done.js';
import { ADMIN_PAGES } from '../../paths.js';

export type AdminInvitesPageDeps = AdminConsoleDeps & Pick<ApiContext, 'issuer'>;

const InviteForm = fieldsOf({ email: formText, role: formText, days: formText });
const formBody = express.urlencoded({ extended: false, limit: '8kb' });
const INVITE_DONE = { revoked: 'The invitation was revoked: its link no longer works.' };

const draftFrom = (req: Request): InviteDraft => {
  const f = InviteForm.parse(req.body);
  return { email: f.email.trim(), role: f.role, days: f.days.trim() };
};

/** The admin API's body for a draft: no email is null; days that are not digits go as text, refused by the change as not a number. */
const bodyOf = (d: InviteDraft) => ({
  email: d.email === '' ? null : d.email,
  role: d.role,
  expires_in_days: /^\d{1,4}$/.test(d.days) ? Number(d.days) : d.days,
});

export function adminInvitesRoutes(deps: AdminInvitesPageDeps): Router {
  const router = Router();
  const actor = (req: Request) => sessionActor(adminOf(req).user._id);

  async function list(req: Request, res: Response, more: { draft?: InviteDraft; createdLink?: string; notice?: SafeHtml; status?: number } = {}) {
    const offset = more.createdLink ? 0 : offsetOf(req);
    const found = await listInvites(deps.store, PAGE_SIZE + 1, offset);
    const data = { invites: found.slice(0, PAGE_SIZE), offset, size: PAGE_SIZE, hasMore: found.length > PAGE_SIZE };
    const notice = more.notice ?? doneNotice(req, INVITE_DONE);
    adminInvitesPage(res, adminOf(req).session.csrf, { ...data, draft: more.draft ?? NEW_INVITE, createdLink: more.createdLink }, notice, more.status);
  }

  router.get(ADMIN_PAGES.invites, (req, res) => list(req, res));

  // Not adminForm: success shows the link in this answer rather than redirecting.
  router.post(ADMIN_PAGES.invites, formBody, async (req, res) => {
    const s = adminOf(req);
    if (!hasValidCsrf(req, s.session))
      return sendErrorPage(res, 403, 'Forbidden', 'This form was sent without its security token. Reload the page and try again.');
    if (!requireRecentSignIn(res, s.session, deps.reauthMaxAgeMs, ADMIN_PAGES.invites)) return;
    const draft = draftFrom(req);
    const created = await createInvite(deps, bodyOf(draft), actor(req)).catch((err: unknown) => {
      if (refusalStatus(err) === null || !(err instanceof Error)) throw err;
      return err;
    });
    if (created instanceof Error) return list(req, res, { draft, notice: errorNotice(created.message), status: refusalStatus(created) ?? 400 });
    await list(req, res, { createdLink: created.link });
  });

  adminForm(
    router,
    deps,
    `${ADMIN_PAGES.invites}/:id/revoke`,
    () => ADMIN_PAGES.invites,
    async (req) => {
      const id = String(req.params.id);
      await revokeInvite(deps, await namedInvite(deps.store, id.length <= 100 ? id : ''), actor(req));
      return doneAt(ADMIN_PAGES.invites, 'revoked');
    },
    (req, res, notice, status) => list(req, res, { notice, status }),
  );
  return router;
}
