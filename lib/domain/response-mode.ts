// How the authorization response travels back to the client: `response_mode`
// (OAuth 2.0 Multiple Response Type Encoding Practices §2.1) with `query`, the
// default for response_type=code, `fragment`, the default for the implicit
// flow's response types, and `form_post` (OAuth 2.0 Form Post Response Mode),
// for either. Pure.
//
// `fragment` is refused for a code: it exists for responses that carry tokens,
// which must stay out of the query (Multiple Response Types §2.1, §5). A
// fragment is also carried over every later redirect that has none of its own,
// so a code in it would travel on wherever the redirect URI's page redirects
// to. `query` is refused for the implicit flow: its tokens would sit in a query
// string, in server logs and Referer headers.
import type { ResponseType } from './response-type.js';

export const RESPONSE_MODES = ['query', 'fragment', 'form_post'] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

/** The mode for response_type=code when the request names none (Multiple Response Types §2.1). */
export const DEFAULT_RESPONSE_MODE: ResponseMode = 'query';

/** The mode a request of `type` gets when it names none (Multiple Response Types §2.1: query for code, fragment for the rest). */
export const defaultResponseMode = (type: ResponseType): ResponseMode => (type === 'code' ? DEFAULT_RESPONSE_MODE : 'fragment');

/** Where and how a response goes: the request's redirect URI and mode, and its `state` to send back. */
export interface ResponseTarget {
  redirectUri: string;
  /** Absent on requests stored before response modes existed: those answer by query. */
  responseMode?: ResponseMode;
  state: string | null;
}

export type ResponseModeCheck = { ok: true; mode: ResponseMode } | { ok: false; description: string };

/**
 * The request's `response_mode` (undefined: absent) for a request of `type`.
 * Every redirect URI is http(s) (redirect-uri.ts), so a page can post a form to it.
 */
export function parseResponseMode(value: string | undefined, type: ResponseType): ResponseModeCheck {
  if (value === undefined) return { ok: true, mode: defaultResponseMode(type) };
  if (value === 'form_post') return { ok: true, mode: 'form_post' };
  if (type === 'code') {
    if (value === 'query') return { ok: true, mode: 'query' };
    if (value === 'fragment') return { ok: false, description: 'response_mode=fragment is not supported: Keyflow answers with a code, by query or form_post' };
    return { ok: false, description: 'response_mode must be query or form_post' };
  }
  if (value === 'fragment') return { ok: true, mode: 'fragment' };
  if (value === 'query')
    return { ok: false, description: `response_mode=query is not allowed for response_type ${type}: its tokens must not be in a query string` };
  return { ok: false, description: `response_mode must be fragment or form_post for response_type ${type}` };
}
