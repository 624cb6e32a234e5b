// The audit records of issued tokens: one helper, so that `token.issued` has
// the same data whatever issued the tokens (each grant type of the token
// endpoint, the implicit flow at the authorization endpoint). Only facts about
// the tokens go in: never a token, its hash or a code.
import type { AuditTrail } from '../audit/audit-trail.js';
import type { AuditActor } from '../model/audit-events.js';

export interface IssuedTokens {
  clientId: string;
  /** The user the tokens are for; null for a client's own (client_credentials) tokens. */
  userId: string | null;
  grantId: string;
  /** The grant type (`implicit` at the authorization endpoint). */
  grantType: string;
  /** The scopes of the access token (or ID token) issued. */
  scope: readonly string[];
  /** The resources (RFC 8707) or audiences the access token is for. */
  resources?: readonly string[];
  /** The DPoP key thumbprint the access token is bound to, if any (only whether there is one is recorded). */
  jkt?: string;
  refreshToken: boolean;
}

/** The client acting for itself at the token endpoint (its own tokens, or a user's grant). */
export const clientActor = (clientId: string): AuditActor => ({ type: 'client', clientId });

/** The subject of a grant's record: its user (if a user's) and its client. */
export const grantSubject = (clientId: string, userId: string | null) => (userId ? { userId, clientId } : { clientId });

/**
 * Notes `token.issued` (not awaited: the token endpoint's hot path). `actor`
 * defaults to the client: a token request is the client's.
 */
export function noteTokenIssued(audit: Pick<AuditTrail, 'note'>, t: IssuedTokens, actor: AuditActor = clientActor(t.clientId)): void {
  audit.note('token.issued', {
    actor,
    subject: grantSubject(t.clientId, t.userId),
    data: {
      client_id: t.clientId,
      grant_id: t.grantId,
      grant_type: t.grantType,
      scopes: [...t.scope],
      resource: [...(t.resources ?? [])],
      bound: t.jkt ? 'dpop' : 'none',
      refresh_token: t.refreshToken,
    },
  });
}
