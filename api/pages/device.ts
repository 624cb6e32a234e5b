// The device page (RFC 8628 §3.3): a person enters the user code shown on a
// device, signs in if needed, and allows or denies the device's request. The
// answer is one signal to the DeviceAuthorization workflow; everything before
// it reads MongoDB only. Wrong codes are rate limited per client address
// (RFC 8628 §5.1): a user code has only ~34 bits, so the allowance shrinks
// while an address keeps running out (backoff).
import express, { Router, type Request, type Response } from 'express';
import type { DeviceApproval, DeviceCodeDoc } from '../../lib/model/device-authorization.js';
import { catalogued } from '../../lib/model/scopes.js';
import { formatUserCode, normalizeUserCode } from '../../lib/model/user-code.js';
import { approveDeviceFlow, denyDeviceFlow } from '../../lib/flows/device-authorization.js';
import type { ClientDoc } from '../../lib/model/clients.js';
import { grantConsent } from '../../lib/authorization/consent-grant.js';
import { sessionActor } from '../../lib/webhooks/event-sources.js';
import { findPendingByUserCode } from '../../lib/store/device-codes.js';
import { takeAttempt } from '../../lib/store/rate-limits.js';
import { sendErrorPage } from '../html/layout.js';
import { answeredPage, codePage, consentPage } from '../views/device.js';
import { clientAddress } from '../http/request-limits.js';
import { formCsrf, hasValidCsrf, type SessionDeps } from '../http/session.js';
import { sessionUser } from '../http/signed-in.js';
import type { DeviceFlowDeps } from '../protocol/device-authorization.js';
import { fieldsOf, raw } from '../http/input.js';
import type { ApiContext } from '../context.js';
import { PAGES } from '../paths.js';
import { currentTimeMs } from '../../lib/runtime/clock.js';

/** `audit`: the decision's record (device.approved, device.denied) and the consent's. */
export type DevicePageDeps = DeviceFlowDeps & SessionDeps & Pick<ApiContext, 'audit'>;

/** Wrong codes per client address per 15 minutes; halved after each window that ran out (a guesser keeps going, a person does not). */
const CODE_LIMIT = { max: 20, windowMs: 15 * 60_000, backoff: true };
const BAD_CODE = 'That code is not valid, has expired or was already used. Check the code on your device.';

type Found = { ok: true; device: DeviceCodeDoc; client: ClientDoc; userCode: string } | { ok: false; status: number; error: string };

/** The user code (typed, or prefilled by verification_uri_complete) and the decision; each is checked where it is used. */
const UserCodeFields = fieldsOf({ user_code: raw });
const DecisionForm = fieldsOf({ user_code: raw, decision: raw });

export function devicePageRoutes(deps: DevicePageDeps): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  /** The pending device request a typed code names; wrong codes count against the address. */
  async function findByUserCode(req: Request, typed: unknown): Promise<Found> {
    if (typeof typed !== 'string' || typed.trim() === '') return { ok: false, status: 400, error: 'Enter the code your device shows.' };
    // Counted before the lookup, so parallel guesses cannot run past the limit; a right code gives its attempt back.
    const limit = await takeAttempt(deps.store, `device-code:${clientAddress(req)}`, CODE_LIMIT);
    if (!limit.allowed) return { ok: false, status: 429, error: 'Too many wrong codes. Wait 15 minutes and try again.' };
    const key = normalizeUserCode(typed);
    const device = key ? await findPendingByUserCode(deps.store, key) : null;
    const client = device ? await deps.findClient(device.clientId) : null;
    if (!key || !device || !client) return { ok: false, status: 400, error: BAD_CODE };
    await limit.attempt.release();
    return { ok: true, device, client, userCode: formatUserCode(key) };
  }

  const loginUrl = (userCode: string) => `${PAGES.login}?next=${encodeURIComponent(`${PAGES.deviceConsent}?user_code=${userCode}`)}`;

  /** Admin-only scopes are for admins: nobody else can allow them (as on the consent page of the code flow). */
  async function mayAllow(req: Request, device: DeviceCodeDoc): Promise<boolean> {
    if (!device.scope.some((s) => catalogued(s)?.adminOnly)) return true;
    return (await sessionUser(deps, req))?.role === 'admin';
  }
  const adminOnly = (res: Response) => sendErrorPage(res, 403, 'Admin access', 'This device asks for admin permissions, which only an admin can allow.');

  router.get(PAGES.device, (req, res) => {
    // verification_uri_complete prefills the code; the person still confirms it (RFC 8628 §5.4).
    const key = normalizeUserCode(UserCodeFields.parse(req.query).user_code);
    codePage(res, formCsrf(req, res, deps), { code: key ? formatUserCode(key) : undefined });
  });

  router.post(PAGES.device, form, async (req, res) => {
    const csrf = formCsrf(req, res, deps);
    const typed = UserCodeFields.parse(req.body).user_code;
    const shown = typeof typed === 'string' ? typed.slice(0, 20) : undefined;
    if (!hasValidCsrf(req, req.kfSession)) return codePage(res, csrf, { code: shown, error: 'Your session expired. Please try again.', status: 400 });
    const found = await findByUserCode(req, typed);
    if (!found.ok) return codePage(res, csrf, { code: shown, error: found.error, status: found.status });
    res.redirect(303, `${PAGES.deviceConsent}?user_code=${found.userCode}`);
  });

  router.get(PAGES.deviceConsent, async (req, res) => {
    const session = req.kfSession;
    const found = await findByUserCode(req, UserCodeFields.parse(req.query).user_code);
    if (!found.ok) return codePage(res, formCsrf(req, res, deps), { error: found.error, status: found.status });
    if (!session?.userId) return res.redirect(303, loginUrl(found.userCode));
    if (!(await mayAllow(req, found.device))) return adminOnly(res);
    consentPage(res, session, found);
  });

  router.post(PAGES.deviceConsent, form, async (req, res) => {
    const session = req.kfSession;
    const body = DecisionForm.parse(req.body);
    const decision = body.decision;
    if (!hasValidCsrf(req, session) || (decision !== 'allow' && decision !== 'deny')) {
      return sendErrorPage(res, 400, 'Session expired', 'Your session expired. Go back and try again.');
    }
    const found = await findByUserCode(req, body.user_code);
    if (!found.ok) return codePage(res, formCsrf(req, res, deps), { error: found.error, status: found.status });
    if (!session?.userId) return res.redirect(303, loginUrl(found.userCode));
    const { device, client } = found;
    if (decision === 'allow' && !(await mayAllow(req, device))) return adminOnly(res);

    const approval: DeviceApproval = {
      userId: session.userId,
      authTime: session.authTime?.getTime() ?? currentTimeMs(),
      amr: session.amr,
      acr: session.acr ?? 'pwd',
      sid: session.sid,
    };
    // The one Temporal call of this request.
    const answered = decision === 'allow' ? await approveDeviceFlow(deps.flows, device._id, approval) : await denyDeviceFlow(deps.flows, device._id);
    // The workflow ended meanwhile (expired): the projection had not caught up yet.
    if (answered.ended) return codePage(res, session.csrf, { error: BAD_CODE, status: 400 });
    const record = { actor: sessionActor(session.userId), subject: { userId: session.userId, clientId: client._id } };
    if (decision === 'allow') {
      await deps.audit.record('device.approved', { ...record, data: { client_id: client._id, scopes: device.scope } });
      await grantConsent(deps, { userId: session.userId, clientId: client._id, scopes: device.scope });
    } else await deps.audit.record('device.denied', { ...record, data: { client_id: client._id } });
    deps.log.info('device authorization answered', { client: client._id, user: session.userId, decision });
    answeredPage(res, client, decision === 'allow');
  });

  return router;
}
