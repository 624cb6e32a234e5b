// What a new app's signing algorithms mean for the relying party that will
// use it, said where the app is made (the CLI on stderr, the app API's answer
// and the console's pages), with the one setting that changes it there. Pure.
import type { SigningAlg } from './signing-keys.js';

/** Where the note is shown: each names the setting its way. */
export type NoteSurface = 'cli' | 'api' | 'page';

const ID_TOKEN_SETTING: Record<NoteSurface, string> = {
  cli: '--id-token-alg RS256',
  api: '"id_token_signed_response_alg": "RS256"',
  page: 'RS256 as its ID token signature',
};

/** The relying-party libraries known to verify ML-DSA-65 ID tokens, and some that do not (docs/relying-parties.md has the recipes). */
export const ML_DSA_VERIFIERS = 'jose on Node.js 24 (openid-client, oauth4webapi)';
const CLASSICAL_ONLY = 'Spring Security, Keycloak, PyJWT, authlib and go-oidc';

/** The notes for an app whose ID tokens are signed with `idTokenAlg`: none when every relying-party library reads it. */
export function signingNotes(idTokenAlg: SigningAlg, surface: NoteSurface): string[] {
  if (idTokenAlg !== 'ML-DSA-65') return [];
  return [
    `ID tokens of this app are signed with ML-DSA-65 (post-quantum), which ${ML_DSA_VERIFIERS} verify and ${CLASSICAL_ONLY} do not yet: ` +
      `for those, give the app ${ID_TOKEN_SETTING[surface]} (or PS256, ES256). Its access tokens are RS256, which every resource server verifies.`,
  ];
}

/** The console forms' hint beside the ID token signature. */
export const ID_TOKEN_ALG_HINT = `ML-DSA-65 is post-quantum: ${ML_DSA_VERIFIERS} verify it; ${CLASSICAL_ONLY} need RS256 (or PS256, ES256).`;

/** The console forms' hint beside the access token signature. */
export const ACCESS_TOKEN_ALG_HINT = 'Resource servers verify access tokens: RS256, the default, is what every one of them reads.';
