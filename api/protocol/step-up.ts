// Step-up 2FA for client apps, the client-facing endpoints:
// - POST /api/oauth/2fa/challenges (JSON; client authentication by Basic or in
//   the body; public clients with PKCE): starts a StepUpChallenge workflow and
//   answers {challenge_id, expires_at, url}. 60 per minute per client.
// - POST /api/oauth/2fa/verify (form): redeems the 2FA code once (the
//   workflow's `redeem` update) for the verification result.
// - GET /api/oauth/2fa/info?challenge_id=…: what the confirmation page needs
//   (the captcha gate: captcha_required, captcha_provider, captcha_site_key,
//   and for provider `pow` a fresh pow_challenge with pow_difficulty);
//   REQUEST_LIMIT_PER_IP per minute per client address.
// The confirmation page and /api/oauth/2fa/authorize are in api/pages/step-up.ts.
import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { isValidS256Challenge, verifierMismatch } from '../../lib/model/pkce.js';
import { checkRedirectUri } from '../../lib/model/redirect-uri.js';
import { isChallengeId } from '../../lib/model/step-up-challenge.js';
import { redeemStepUpFlow, startStepUpFlow } from '../../lib/flows/step-up-challenge.js';
import { hashSecret, newId } from '../../lib/security/secrets.js';
import { getSiteSettings } from '../../lib/store/settings.js';
import { deleteStepUpChallenge, findStepUpChallenge, findStepUpCode, insertStepUpChallenge } from '../../lib/store/step-up.js';
import { captchaInfo } from '../../lib/verification/captcha.js';
import { methodNotAllowed } from '../http/errors.js';
import { admitRequest, limitPerIp } from '../http/request-limits.js';
import { authenticateClient, type ClientAuthResult } from './shared/client-auth.js';
import { sendOAuthError, sendOAuthJson } from './shared/errors.js';
import { fieldsOf, FormValues, JsonObject, raw, singleValues } from '../http/input.js';
import type { ApiContext } from '../context.js';
import { STEP_UP_PATHS } from '../paths.js';
import { currentDate, currentTimeMs } from '../../lib/runtime/clock.js';

/** `outbound` is the policy for captcha providers' verify URLs. */
export interface StepUpDeps extends Pick<ApiContext, 'issuer' | 'store' | 'findClient' | 'clientAssertions' | 'log' | 'flows' | 'outbound' | 'limits'> {
  /** How long a challenge waits for the user (STEP_UP_CHALLENGE_TTL_SECONDS; a choice of ours, in docs/configuration-reference.md). */
  challengeTtlMs: number;
}

/** The 2FA code's lifetime after issuance: long enough for the app to redeem it after the redirect. */
export const STEP_UP_CODE_TTL_MS = 5 * 60_000;
/** Challenge creation per client (60 per minute): a leaked client secret cannot flood users with prompts. */
const CHALLENGE_LIMIT = { max: 60, windowMs: 60_000 };
const INVALID_CODE = 'code expired or invalid';

/** The query of the pages and endpoints that name a challenge (checked with isChallengeId). */
export const ChallengeQuery = fieldsOf({ challenge_id: raw });

/** Where the client sends the user: the confirmation page. */
export const stepUpPageUrl = (issuer: string, challengeId: string, state: string | null) =>
  `${issuer}${STEP_UP_PATHS.page}?challenge_id=${challengeId}${state !== null ? `&state=${encodeURIComponent(state)}` : ''}`;

const ChallengeRequest = z.object({
  redirect_uri: z.string().min(1, 'redirect_uri is required').max(2000),
  action: z.string().max(200, 'action must be at most 200 characters').default(''),
  nonce: z.string().max(256, 'nonce must be at most 256 characters').default(''),
  state: z.string().max(1000, 'state must be at most 1000 characters').optional(),
  code_challenge: z.string().refine(isValidS256Challenge, 'code_challenge must be 43 base64url characters').optional(),
  code_challenge_method: z.literal('S256', 'code_challenge_method must be S256').optional(),
  require_captcha: z.boolean('require_captcha must be a boolean').default(false),
});

/** invalid_client is 401 at these endpoints (with a Basic challenge after Basic); other failures 400. */
function sendAuthError(res: Response, result: Extract<ClientAuthResult, { ok: false }>): void {
  if (result.error !== 'invalid_client') return sendOAuthError(res, 400, result.error, result.description);
  sendOAuthError(res, 401, 'invalid_client', result.description, result.basic ? { 'WWW-Authenticate': 'Basic realm="keyflow", charset="UTF-8"' } : {});
}

export function stepUpRoutes(deps: StepUpDeps): Router {
  const router = Router();
  const json = express.json({ limit: '16kb' });
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  router.post(STEP_UP_PATHS.challenges, json, async (req: Request, res: Response) => {
    if (!req.is('application/json') || !JsonObject.safeParse(req.body).success) {
      return sendOAuthError(res, 400, 'invalid_request', 'the body must be a JSON object');
    }
    // authenticateClient reads client_id / client_secret from req.body: the parsed JSON object.
    const auth = await authenticateClient(deps.findClient, req, deps.clientAssertions);
    if (!auth.ok) return sendAuthError(res, auth);
    const client = auth.client;
    // Every authenticated request counts, valid or not: a leaked secret cannot flood users.
    if (!(await admitRequest(deps.store, res, `2fa-challenges:${client._id}`, CHALLENGE_LIMIT, 'too many challenges for this client; retry later'))) return;

    const parsed = ChallengeRequest.safeParse(req.body);
    if (!parsed.success) return sendOAuthError(res, 400, 'invalid_request', parsed.error.issues[0]?.message ?? 'invalid request');
    const p = parsed.data;
    const redirect = checkRedirectUri(client.redirectUris, p.redirect_uri);
    if (!redirect.ok) return sendOAuthError(res, 400, 'invalid_request', redirect.reason);
    if ((p.code_challenge === undefined) !== (p.code_challenge_method === undefined)) {
      return sendOAuthError(res, 400, 'invalid_request', 'code_challenge and code_challenge_method=S256 go together');
    }
    if (client.public && !p.code_challenge)
      return sendOAuthError(res, 400, 'invalid_request', 'public clients must send code_challenge with code_challenge_method=S256');

    const challengeId = newId();
    const now = currentTimeMs();
    const expiresAt = now + deps.challengeTtlMs;
    const state = p.state ?? null;
    await insertStepUpChallenge(deps.store, {
      _id: challengeId,
      clientId: client._id,
      redirectUri: p.redirect_uri,
      state,
      codeChallenge: p.code_challenge ?? null,
      action: p.action,
      nonce: p.nonce,
      requireCaptcha: p.require_captcha,
      status: 'created',
      createdAt: new Date(now),
      expiresAt: new Date(expiresAt),
    });
    try {
      await startStepUpFlow(deps.flows, { challengeId, clientId: client._id, expiresAt, codeTtlMs: STEP_UP_CODE_TTL_MS });
    } catch (err) {
      // Without its workflow the challenge could never be confirmed: it must not exist.
      await deleteStepUpChallenge(deps.store, challengeId);
      throw err;
    }
    sendOAuthJson(res, 201, { challenge_id: challengeId, expires_at: Math.floor(expiresAt / 1000), url: stepUpPageUrl(deps.issuer, challengeId, state) });
  });
  router.all(STEP_UP_PATHS.challenges, methodNotAllowed(['POST']));

  router.post(STEP_UP_PATHS.verify, form, async (req: Request, res: Response) => {
    if (!req.is('application/x-www-form-urlencoded')) return sendOAuthError(res, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    const form = FormValues.safeParse(req.body);
    if (!form.success) return sendOAuthError(res, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    const single = singleValues(form.data);
    if ('repeated' in single) return sendOAuthError(res, 400, 'invalid_request', `${single.repeated} must appear once`);
    const auth = await authenticateClient(deps.findClient, req, deps.clientAssertions);
    if (!auth.ok) return sendAuthError(res, auth);
    const { code, redirect_uri: redirectUri, code_verifier: verifier } = single.fields;
    if (!code) return sendOAuthError(res, 400, 'invalid_request', 'code is required');
    if (!redirectUri) return sendOAuthError(res, 400, 'invalid_request', 'redirect_uri is required');
    const codeHash = code.length <= 100 ? hashSecret(code) : null;
    const doc = codeHash ? await findStepUpCode(deps.store, codeHash) : null;
    if (!doc || doc.status !== 'issued' || doc.expiresAt <= currentDate() || doc.clientId !== auth.client._id || doc.redirectUri !== redirectUri) {
      return sendOAuthError(res, 400, 'invalid_grant', INVALID_CODE);
    }
    const mismatch = verifierMismatch(doc.codeChallenge, verifier, 'the challenge');
    if (mismatch) return sendOAuthError(res, 400, 'invalid_grant', mismatch);
    // The one Temporal call: the code is handed out once, whatever races.
    const result = await redeemStepUpFlow(deps.flows, doc.challengeId, { codeHash: codeHash! });
    if (result.ended || result.value.status !== 'redeemed') return sendOAuthError(res, 400, 'invalid_grant', INVALID_CODE);
    deps.log.info('step-up code redeemed', { client: doc.clientId, user: doc.userId, method: doc.method });
    sendOAuthJson(res, 200, {
      user_id: doc.userId,
      client_id: doc.clientId,
      verified_at: Math.floor(doc.verifiedAt.getTime() / 1000),
      action: doc.action,
      nonce: doc.nonce,
      method: doc.method,
    });
  });
  router.all(STEP_UP_PATHS.verify, methodNotAllowed(['POST']));

  // Unauthenticated, and with provider `pow` every call stores a fresh challenge: limited per address first.
  router.get(STEP_UP_PATHS.info, limitPerIp(deps, '2fa_info'), async (req: Request, res: Response) => {
    const id = ChallengeQuery.parse(req.query).challenge_id;
    if (!isChallengeId(id)) return sendOAuthError(res, 400, 'invalid_request', 'challenge_id is required');
    const challenge = await findStepUpChallenge(deps.store, id);
    const client = challenge && (await deps.findClient(challenge.clientId));
    if (!challenge || !client || challenge.status !== 'created') return sendOAuthError(res, 404, 'not_found', 'unknown, used or expired challenge');
    // The captcha gate: with provider `pow`, each call issues a fresh single-use pow_challenge.
    const captcha = await captchaInfo(deps.store, await getSiteSettings(deps.store), challenge);
    sendOAuthJson(res, 200, { ...captcha, action: challenge.action, client_name: client.name });
  });
  router.all(STEP_UP_PATHS.info, methodNotAllowed(['GET']));

  return router;
}
