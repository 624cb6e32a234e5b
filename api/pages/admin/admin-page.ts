// What every admin console page shares: the gate (a site admin now, else the
// same 404 as an unknown path), the admin of a request, a console form POST
// (CSRF, recent sign-in, Post/Redirect/Get or the page again with the
// refusal) and the paging query.
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { z } from 'zod';
import { refusalStatus } from '../../../lib/model/errors.js';
import type { SafeHtml } from '../../html/html.js';
import { sendErrorPage } from '../../html/layout.js';
import { notFound } from '../../http/errors.js';
import { fieldsOf } from '../../http/input.js';
import { hasValidCsrf, requireRecentSignIn } from '../../http/session.js';
import { signedInUser, type SignedIn } from '../../http/signed-in.js';
import type { ApiContext } from '../../context.js';
import { errorNotice } from '../../views/teams.js';

export type AdminConsoleDeps = Pick<ApiContext, 'store' | 'secureCookies' | 'events' | 'audit' | 'kek' | 'reauthMaxAgeMs'>;

declare module 'express-serve-static-core' {
  interface Request {
    /** The signed-in site admin of an /admin request (set by adminGate). */
    kfAdmin?: SignedIn;
  }
}

/**
 * Before every /admin route: signed out, the sign-in redirect; signed in but
 * not a site admin (re-read now), the 404 of an unknown path, so the console
 * is not revealed.
 */
export function adminGate(deps: AdminConsoleDeps): RequestHandler {
  return async (req, res, next) => {
    const s = await signedInUser(deps, req, res);
    if (!s) return;
    if (s.user.role !== 'admin') return notFound(req, res, next);
    req.kfAdmin = s;
    next();
  };
}

/** The admin of a request that passed adminGate. */
export function adminOf(req: Request): SignedIn {
  if (!req.kfAdmin) throw new Error('an /admin route ran without adminGate');
  return req.kfAdmin;
}

const formBody = express.urlencoded({ extended: false, limit: '32kb' });

/** Shows a console page again after a refused change, with the refusal's message and status. */
export type Reshow = (req: Request, res: Response, notice: SafeHtml, status: number) => Promise<void>;

/**
 * A console form at POST `path`: refused with 403 without the session's CSRF
 * token; a sign-in older than REAUTH_MAX_AGE_SECONDS signs in again and comes
 * back to `page`. The change answers where to go (default `page`); a refusal
 * (ValidationError …) shows the page again with its message.
 */
export function adminForm(
  router: Router,
  deps: AdminConsoleDeps,
  path: string,
  page: (req: Request) => string,
  change: (req: Request, s: SignedIn) => Promise<string | void>,
  reshow: Reshow,
): void {
  router.post(path, formBody, async (req, res) => {
    const s = adminOf(req);
    if (!hasValidCsrf(req, s.session))
      return sendErrorPage(res, 403, 'Forbidden', 'This form was sent without its security token. Reload the page and try again.');
    if (!requireRecentSignIn(res, s.session, deps.reauthMaxAgeMs, page(req))) return;
    try {
      res.redirect(303, (await change(req, s)) ?? page(req));
    } catch (err) {
      const status = refusalStatus(err);
      if (status === null || !(err instanceof Error)) throw err;
      await reshow(req, res, errorNotice(err.message), status);
    }
  });
}

/** How many rows a console list shows at once. */
export const PAGE_SIZE = 50;

/** `offset` of a paged list: a whole number; anything else reads as 0. */
const Offset = fieldsOf({
  offset: z
    .string()
    .regex(/^\d{1,9}$/)
    .transform(Number)
    .optional()
    .catch(undefined),
});

export const offsetOf = (req: Request): number => Offset.parse(req.query).offset ?? 0;

/** `sort` and `dir` of a sortable list; an unknown value reads as the default, so a list is never refused for it. */
export function sortingOf<K extends string>(keys: readonly [K, ...K[]], fallback: K) {
  const Sorting = fieldsOf({ sort: z.enum(keys).catch(fallback), dir: z.enum(['asc', 'desc']).catch('asc') });
  return (req: Request): { sort: K; dir: 'asc' | 'desc' } => Sorting.parse(req.query);
}
