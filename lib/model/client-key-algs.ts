// The JWS algorithms of keys clients hold: private_key_jwt assertions
// (RFC 7523), DPoP proofs (RFC 9449) and request objects (RFC 9101). Those
// jose verifies with a client's public JWK; no shared-secret (HS*) algorithm.
// A module of its own, importing nothing: the client model and discovery both read it.
export const CLIENT_KEY_ALGS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
export type ClientKeyAlg = (typeof CLIENT_KEY_ALGS)[number];
