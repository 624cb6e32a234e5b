// Step-up authentication signalling (RFC 9470) for resource endpoints that need
// more than a password: the token's `acr` must be `mfa` and, where given, its
// `auth_time` recent. Otherwise 401 with
// `WWW-Authenticate: Bearer error="insufficient_user_authentication", acr_values="mfa"[, max_age=N]`,
// and the client repeats the authorization with those acr_values (and max_age).
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { WELL_KNOWN } from '../../../lib/model/discovery.js';
import { currentTimeMs } from '../../../lib/runtime/clock.js';

export interface StepUpRequirement {
  acr: 'mfa';
  /** Seconds since the user authenticated, at most. */
  maxAge?: number;
}

/** Why the verified token in `req.access` falls short of `need`, or null when it meets it. */
export function stepUpShortfall(req: Request, need: StepUpRequirement): string | null {
  const claims = req.access?.claims ?? {};
  if (claims.acr !== need.acr) return 'a second factor is required';
  const authTime = typeof claims.auth_time === 'number' ? claims.auth_time : 0;
  if (need.maxAge !== undefined && Math.floor(currentTimeMs() / 1000) - authTime > need.maxAge) return 'a more recent authentication is required';
  return null;
}

/** The RFC 9470 challenge: the client repeats the authorization with these acr_values (and max_age). */
export function sendStepUpChallenge(res: Response, issuer: string, need: StepUpRequirement, description: string): void {
  const params = [
    'error="insufficient_user_authentication"',
    `error_description="${description}"`,
    `acr_values="${need.acr}"`,
    ...(need.maxAge !== undefined ? [`max_age=${need.maxAge}`] : []),
    `resource_metadata="${issuer}${WELL_KNOWN.protectedResource}"`,
  ];
  res
    .status(401)
    .set({ 'WWW-Authenticate': `Bearer ${params.join(', ')}`, 'Cache-Control': 'no-store' })
    .json({ error: 'insufficient_user_authentication', error_description: description });
}

/** Middleware form, for endpoints that need no other check first (runs after requireAccessToken). */
export function requireStepUp(issuer: string, need: StepUpRequirement): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const shortfall = stepUpShortfall(req, need);
    if (shortfall) return sendStepUpChallenge(res, issuer, need, shortfall);
    next();
  };
}
