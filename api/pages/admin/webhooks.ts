// /admin/webhooks: a site admin lists the admin webhooks, creates, edits,
// tests and deletes them through lib/webhooks/webhook-changes.ts (the webhook
// API's changes, checks and events). Creating and testing answer with the page
// itself: the new signing secret, or the test's outcome, is in that answer
// only (never cached, never redirected to), so a reload shows neither again.
import express, { Router, type Request, type Response } from 'express';
import { refusalStatus, ValidationError } from '../../../lib/model/errors.js';
import { recentDeliveries } from '../../../lib/store/webhook-history.js';
import { listWebhooks } from '../../../lib/store/webhooks.js';
import { sessionActor } from '../../../lib/webhooks/event-sources.js';
import {
  addWebhook,
  editWebhook,
  removeWebhook,
  sendTestPing,
  TestPingUnavailable,
  visibleWebhook,
  type WebhookChangeDeps,
} from '../../../lib/webhooks/webhook-changes.js';
import type { SafeHtml } from '../../html/html.js';
import { sendErrorPage } from '../../html/layout.js';
import { fieldsOf, formList, formText } from '../../http/input.js';
import { hasValidCsrf, requireRecentSignIn } from '../../http/session.js';
import type { SignedIn } from '../../http/signed-in.js';
import type { ApiContext } from '../../context.js';
import { adminWebhooksPage, NEW_WEBHOOK, testNotice, type AdminWebhooksData, type WebhookDraft } from '../../views/admin/webhooks.js';
import { errorNotice } from '../../views/teams.js';
import { adminForm, adminOf, type AdminConsoleDeps } from './admin-page.js';
import { doneAt, doneNotice } from '../../http/done.js';
import { ADMIN_PAGES } from '../../paths.js';

export type AdminWebhooksPageDeps = AdminConsoleDeps & Pick<ApiContext, 'flows' | 'config'>;

/** Deliveries shown per webhook. */
const RECENT = 5;

const WebhookForm = fieldsOf({ name: formText, url: formText, events: formList, active: formText });
const ConfirmForm = fieldsOf({ confirm: formText });
const formBody = express.urlencoded({ extended: false, limit: '32kb' });
const WEBHOOK_DONE = { saved: 'The webhook was saved.', deleted: 'The webhook and its delivery history were deleted.' };

const draftFrom = (req: Request): WebhookDraft => {
  const f = WebhookForm.parse(req.body);
  return { name: f.name, url: f.url, events: f.events, active: f.active === '1' };
};

/** The answer of a refused change, or null when `err` is a real fault (left to the error handler). */
const refusal = (err: unknown): { notice: SafeHtml; status: number } | null => {
  const status = refusalStatus(err);
  return status !== null && err instanceof Error ? { notice: errorNotice(err.message), status } : null;
};

export function adminWebhooksRoutes(deps: AdminWebhooksPageDeps): Router {
  const router = Router();
  const changes: WebhookChangeDeps = { ...deps, outbound: deps.config.outbound, deliveryTimeoutMs: deps.config.webhookTimeoutMs };
  const actor = (req: Request) => sessionActor(adminOf(req).user._id);
  const named = (req: Request) => visibleWebhook(deps.store, 'admin', adminOf(req).user._id, String(req.params.id));

  async function list(req: Request, res: Response, more: Partial<AdminWebhooksData> & { notice?: SafeHtml; status?: number } = {}) {
    const hooks = await listWebhooks(deps.store, 'admin');
    const rows = await Promise.all(hooks.map(async (webhook) => ({ webhook, deliveries: await recentDeliveries(deps.store, webhook._id, RECENT) })));
    const notice = more.notice ?? doneNotice(req, WEBHOOK_DONE);
    adminWebhooksPage(res, adminOf(req).session.csrf, { rows, draft: more.draft ?? NEW_WEBHOOK, created: more.created }, notice, more.status);
  }

  /** A console form answered with the page itself (not adminForm's redirect): CSRF and a recent sign-in first. */
  const answeredForm = (path: string, answer: (req: Request, res: Response, s: SignedIn) => Promise<void>) =>
    router.post(path, formBody, async (req, res) => {
      const s = adminOf(req);
      if (!hasValidCsrf(req, s.session))
        return sendErrorPage(res, 403, 'Forbidden', 'This form was sent without its security token. Reload the page and try again.');
      if (!requireRecentSignIn(res, s.session, deps.reauthMaxAgeMs, ADMIN_PAGES.webhooks)) return;
      await answer(req, res, s);
    });

  router.get(ADMIN_PAGES.webhooks, (req, res) => list(req, res));

  answeredForm(ADMIN_PAGES.webhooks, async (req, res, s) => {
    const draft = draftFrom(req);
    const body = { name: draft.name, url: draft.url, events: draft.events };
    try {
      await list(req, res, { created: await addWebhook(changes, 'admin', s.user._id, body, actor(req), !draft.active) });
    } catch (err) {
      const refused = refusal(err);
      if (!refused) throw err;
      await list(req, res, { draft, ...refused });
    }
  });

  answeredForm(`${ADMIN_PAGES.webhooks}/:id/test`, async (req, res) => {
    let answer: { notice: SafeHtml; status?: number };
    try {
      const hook = await named(req);
      answer = { notice: testNotice(hook.name, (await sendTestPing(changes, hook)).outcome) };
    } catch (err) {
      // The worker away is the API's 503: said on the page, like a refusal.
      const refused = err instanceof TestPingUnavailable ? { notice: errorNotice(err.message), status: 503 } : refusal(err);
      if (!refused) throw err;
      answer = refused;
    }
    await list(req, res, answer);
  });

  const reshow = (req: Request, res: Response, notice: SafeHtml, status: number) => list(req, res, { notice, status });
  adminForm(
    router,
    deps,
    `${ADMIN_PAGES.webhooks}/:id`,
    () => ADMIN_PAGES.webhooks,
    async (req) => {
      const draft = draftFrom(req);
      await editWebhook(
        changes,
        await named(req),
        { name: draft.name, ...(draft.url ? { url: draft.url } : {}), events: draft.events, is_active: draft.active },
        actor(req),
      );
      return doneAt(ADMIN_PAGES.webhooks, 'saved');
    },
    reshow,
  );
  adminForm(
    router,
    deps,
    `${ADMIN_PAGES.webhooks}/:id/delete`,
    () => ADMIN_PAGES.webhooks,
    async (req) => {
      const hook = await named(req);
      if (ConfirmForm.parse(req.body).confirm.trim() !== hook.name)
        throw new ValidationError([`type the name ${hook.name} to delete the webhook; nothing was deleted`]);
      await removeWebhook(changes, hook, actor(req));
      return doneAt(ADMIN_PAGES.webhooks, 'deleted');
    },
    reshow,
  );
  return router;
}
