// `response_type` (RFC 6749 §3.1.1, OAuth 2.0 Multiple Response Type Encoding
// Practices, OIDC Core §3): `code` for every client, and the implicit flow's
// `id_token` and `id_token token` (OIDC Core §3.2) only for a client that
// registered them. RFC 9700 §2.1.2 advises against response types that put an
// access token in the front channel, so the implicit flow is opt-in per client:
// a client that never asked for it cannot be made to use it by a request. Pure.

export const RESPONSE_TYPES = ['code', 'id_token', 'id_token token'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

/** The grant type that goes with the implicit response types (OIDC Dynamic Registration §2). */
export const IMPLICIT_GRANT_TYPE = 'implicit';

/**
 * The response type a value names, in its canonical spelling; null when it is
 * not one Keyflow supports. The order of space-separated values does not matter
 * (Multiple Response Types §2): `token id_token` is `id_token token`.
 */
export function parseResponseType(value: string): ResponseType | null {
  const canonical = value.split(' ').sort().join(' ');
  return RESPONSE_TYPES.find((t) => t === canonical) ?? null;
}

/** The implicit flow: tokens straight from the authorization endpoint, no code. */
export const isImplicit = (type: ResponseType): boolean => type !== 'code';

/** Whether the response carries an access token beside the ID token. */
export const issuesAccessToken = (type: ResponseType): boolean => type === 'id_token token';

/**
 * Whether a client may use `type`: `code`, every client; the implicit ones only
 * a client that registered them (absent: none did).
 */
export function clientMayUse(registered: readonly string[] | undefined, type: ResponseType): boolean {
  return !isImplicit(type) || (registered ?? []).some((r) => parseResponseType(r) === type);
}
