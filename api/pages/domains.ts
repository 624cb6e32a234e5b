// /account/domains: the signed-in user's custom domains in the browser — the
// list with each TXT record to publish, adding one, "Check now" and removing
// one. Every change goes through lib/accounts/custom-domain-changes.ts with the user as
// the actor, so the flow and events are the ones the API gets. CSRF on every
// form; a refusal is shown on the page with its status, a success redirects
// back to the list (Post/Redirect/Get).
import express, { Router, type Request, type Response } from 'express';
import { AddDomainInput } from '../../lib/model/custom-domains.js';
import { parseOrRefuse, refusalStatus } from '../../lib/model/errors.js';
import { addUserDomain, removeUserDomain, verifyUserDomain } from '../../lib/accounts/custom-domain-changes.js';
import { listDomains } from '../../lib/store/custom-domains.js';
import { sessionActor } from '../../lib/webhooks/event-sources.js';
import type { SafeHtml } from '../html/html.js';
import { csrfGuard, signedInUser, type SignedIn } from '../http/signed-in.js';
import { fieldsOf, formText, text } from '../http/input.js';
import { domainsPage, errorNotice, infoNotice } from '../views/domains.js';
import type { ApiContext } from '../context.js';
import { PAGES } from '../paths.js';

export type DomainsPageDeps = Pick<ApiContext, 'store' | 'secureCookies' | 'flows' | 'events' | 'audit' | 'config'>;

const AddForm = fieldsOf({ domain: formText });
/** After "Check now": the domain checked, so the page can say so. */
const ListQuery = fieldsOf({ checking: text });

export function domainsPageRoutes(deps: DomainsPageDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  async function listPage(res: Response, s: SignedIn, notice?: SafeHtml, draft = '', status = 200): Promise<void> {
    domainsPage(res, s, await listDomains(deps.store, s.user._id), notice, draft, status);
  }

  /** Runs a change for the signed-in user; its refusal is shown on the list with its status. */
  async function change(req: Request, res: Response, run: (s: SignedIn) => Promise<string>, draft = ''): Promise<void> {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    try {
      res.redirect(303, await run(s));
    } catch (err) {
      const status = refusalStatus(err);
      if (status === null || !(err instanceof Error)) throw err;
      await listPage(res, s, errorNotice(err.message), draft, status);
    }
  }

  router.get(PAGES.domains, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s) return;
    const domains = await listDomains(deps.store, s.user._id);
    // The check may have found the record before this page is shown: then say so.
    const checking = domains.find((d) => d._id === ListQuery.parse(req.query).checking);
    const notice = !checking
      ? undefined
      : checking.verified
        ? infoNotice(`${checking.domain} is verified.`)
        : infoNotice(`Checking ${checking.domain} now: reload this page in a few seconds.`);
    domainsPage(res, s, domains, notice);
  });

  router.post(PAGES.domains, form, async (req, res) => {
    const typed = AddForm.parse(req.body).domain;
    await change(
      req,
      res,
      async (s) => {
        const input = parseOrRefuse(AddDomainInput, { domain: typed });
        await addUserDomain(deps, s.user._id, input.domain, sessionActor(s.user._id));
        return PAGES.domains;
      },
      typed.length <= 1024 ? typed : '',
    );
  });

  router.post(`${PAGES.domains}/:id/verify`, form, async (req, res) => {
    await change(req, res, async (s) => {
      const d = await verifyUserDomain(deps, s.user._id, String(req.params.id));
      return d.verified ? PAGES.domains : `${PAGES.domains}?checking=${encodeURIComponent(d._id)}`;
    });
  });

  router.post(`${PAGES.domains}/:id/delete`, form, async (req, res) => {
    await change(req, res, async (s) => {
      await removeUserDomain(deps, s.user._id, String(req.params.id), sessionActor(s.user._id));
      return PAGES.domains;
    });
  });

  return router;
}
