// PKCE for tests whose subject is something else: every client requires PKCE
// by default, so their authorization requests carry this fixed pair (RFC 7636).
import { s256Challenge } from '../../lib/domain/pkce.js';

export const TEST_VERIFIER = 'test-code-verifier-with-enough-entropy-0123456789';
export const TEST_CHALLENGE = s256Challenge(TEST_VERIFIER);

/** Authorization request parameters with the test challenge added, unless they already name one. */
export function withPkce<T extends Record<string, string>>(params: T): T & { code_challenge?: string; code_challenge_method?: string } {
  return 'code_challenge' in params ? params : { ...params, code_challenge: TEST_CHALLENGE, code_challenge_method: 'S256' };
}

/** A token request body with the test verifier added to an authorization_code grant that has none. */
export function withVerifier<T extends Record<string, string>>(body: T): T & { code_verifier?: string } {
  return body.grant_type === 'authorization_code' && !('code_verifier' in body) ? { ...body, code_verifier: TEST_VERIFIER } : body;
}
