// Request objects (OIDC Core §6: `request`) are not read: Keyflow answers
// `request_not_supported`. A request may carry its `response_mode` and
// `state` inside the object alone (§6.1), and the refusal must still go back
// the way the client asked, with its state. Only those two are taken from the
// object, unverified, and only for that refusal, to the redirect URI already
// checked from the plain parameters: they decide nothing but how the client
// hears the refusal.
import { decodeJwt } from 'jose';
import { RESPONSE_MODES, type ResponseMode } from '../../lib/domain/response-mode.js';

export function refusalHints(request: unknown): { responseMode?: ResponseMode; state?: string } {
  if (typeof request !== 'string' || request.length > 16_384) return {};
  try {
    const claims = decodeJwt(request);
    const mode = RESPONSE_MODES.find((m) => m === claims.response_mode);
    const state = typeof claims.state === 'string' && claims.state.length <= 2048 ? claims.state : undefined;
    return { ...(mode ? { responseMode: mode } : {}), ...(state !== undefined ? { state } : {}) };
  } catch {
    return {};
  }
}
