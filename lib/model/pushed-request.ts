// Pushed authorization requests (RFC 9126): the validated parameters of a
// request a client pushed, waiting to be named at the authorization endpoint
// by its request_uri. Stored by the SHA-256 of the request_uri's opaque part;
// used once, short-lived, bound to the client that pushed it.
import { PAR_REQUEST_URI_PREFIX, type ValidAuthorization } from './authorization-request.js';

export interface ParRequestDoc {
  _id: string; // SHA-256 of the request_uri's opaque part
  clientId: string;
  params: ValidAuthorization;
  createdAt: Date;
  expiresAt: Date;
}

/** RFC 9126 §2.2 expires_in (RFC 9126's example value). */
export const PAR_REQUEST_TTL_SECONDS = 90;

/** A used request_uri is remembered this much longer than it lives, so that a late second use is still recognised. */
export const PAR_REUSE_MEMORY_MS = 10 * 60_000;

export type PushedRequestRefusal = 'unknown' | 'expired' | 'other-client' | 'used';

export const requestUriFor = (opaque: string): string => `${PAR_REQUEST_URI_PREFIX}${opaque}`;

/** The opaque part of a request_uri Keyflow could have issued, else null. */
export function requestUriOpaque(requestUri: string): string | null {
  if (!requestUri.startsWith(PAR_REQUEST_URI_PREFIX) || requestUri.length > PAR_REQUEST_URI_PREFIX.length + 100) return null;
  return requestUri.slice(PAR_REQUEST_URI_PREFIX.length);
}

/** Why a stored request may not be used by `clientId` now (before its single use is claimed), or null. */
export function pushedRequestRefusal(doc: ParRequestDoc, clientId: string, now: Date): 'other-client' | 'expired' | null {
  if (doc.clientId !== clientId) return 'other-client';
  if (doc.expiresAt <= now) return 'expired';
  return null;
}
