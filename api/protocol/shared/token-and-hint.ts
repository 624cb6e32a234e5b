// The form of introspection (RFC 7662 §2.1) and revocation (RFC 7009 §2.1):
// `token` and its optional `token_type_hint`.
import type { Request, Response } from 'express';
import { fieldsOf, raw } from '../../http/input.js';
import { sendOAuthError } from './errors.js';

/** The token and its hint; a token that is not one string is refused as missing. */
const TokenRequest = fieldsOf({ token: raw, token_type_hint: raw });

/** The request's token and hint; null when the token is missing (the 400 is sent). */
export function tokenParams(req: Request, res: Response): { token: string; hint: string | undefined } | null {
  const body = TokenRequest.parse(req.body);
  if (typeof body.token !== 'string' || body.token.length === 0 || body.token.length > 16_384) {
    sendOAuthError(res, 400, 'invalid_request', 'token is required');
    return null;
  }
  const hint = typeof body.token_type_hint === 'string' ? body.token_type_hint : undefined;
  return { token: body.token, hint };
}
