// OAuth error responses of the token-family endpoints (RFC 6749 §5.2): JSON
// {error, error_description}, never cached.
import type { Response } from 'express';

export function sendOAuthError(res: Response, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  // The code answered, for the token endpoint's outcome counter (endpoint.ts reads it when the response ends).
  res.locals.oauthError = error;
  res
    .status(status)
    .set({ 'Cache-Control': 'no-store', Pragma: 'no-cache', ...headers })
    .json({ error, error_description: description });
}

export function sendOAuthJson(res: Response, status: number, body: unknown): void {
  res.status(status).set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(body);
}
