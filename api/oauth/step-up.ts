// Step-up authentication signalling (RFC 9470) for resource endpoints that need
// more than a password: the token's `acr` must be `mfa` and, where given, its
// `auth_time` recent. Otherwise 401 with
// `WWW-Authenticate: Bearer error="insufficient_user_authentication", acr_values="mfa"[, max_age=N]`,
// and the client repeats the authorization with those acr_values (and max_age).
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { WELL_KNOWN } from '../../domain/discovery.js';

export interface StepUpRequirement {
  acr: 'mfa';
  /** Seconds since the user authenticated, at most. */
  maxAge?: number;
}

/** Runs after requireAccessToken: `req.access` holds the verified token. */
export function requireStepUp(issuer: string, need: StepUpRequirement): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const claims = req.access?.claims ?? {};
    const authTime = typeof claims.auth_time === 'number' ? claims.auth_time : 0;
    const tooOld = need.maxAge !== undefined && Math.floor(Date.now() / 1000) - authTime > need.maxAge;
    if (claims.acr === need.acr && !tooOld) return next();
    const description = tooOld ? 'a more recent authentication is required' : 'a second factor is required';
    const params = [
      'error="insufficient_user_authentication"',
      `error_description="${description}"`,
      `acr_values="${need.acr}"`,
      ...(need.maxAge !== undefined ? [`max_age=${need.maxAge}`] : []),
      `resource_metadata="${issuer}${WELL_KNOWN.protectedResource}"`,
    ];
    res.status(401).set({ 'WWW-Authenticate': `Bearer ${params.join(', ')}`, 'Cache-Control': 'no-store' }).json({ error: 'insufficient_user_authentication', error_description: description });
  };
}
