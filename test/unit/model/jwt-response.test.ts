// The JWT of a JWT-mode authorization response (JARM): its claims (the
// response's parameters, iss, aud and a short exp) and the algorithm a client
// gets when it registered none.
import { authorizationResponseAlg, JWT_RESPONSE_TTL_SECONDS, jwtResponseClaims } from '../../../lib/model/jwt-response.js';

const ISSUER = 'https://id.example';
const NOW = Date.parse('2025-02-03T04:05:06.789Z');
const NOW_S = Math.floor(NOW / 1000);

describe('jwtResponseClaims', () => {
  it('carries the parameters, with iss, aud and an exp five minutes on', () => {
    expect(jwtResponseClaims(ISSUER, 'rp', { code: 'c-1', state: 's-1', iss: ISSUER }, NOW)).toEqual({
      code: 'c-1',
      state: 's-1',
      iss: ISSUER,
      aud: 'rp',
      exp: NOW_S + 300,
    });
    expect(JWT_RESPONSE_TTL_SECONDS).toBeLessThanOrEqual(600);
  });

  it('leaves out a missing state, and carries an error as it is', () => {
    expect(jwtResponseClaims(ISSUER, 'rp', { error: 'access_denied', error_description: 'no', state: null, iss: ISSUER }, NOW)).toEqual({
      error: 'access_denied',
      error_description: 'no',
      iss: ISSUER,
      aud: 'rp',
      exp: NOW_S + JWT_RESPONSE_TTL_SECONDS,
    });
  });

  it('lets no parameter replace iss, aud or exp', () => {
    expect(jwtResponseClaims(ISSUER, 'rp', { iss: 'https://evil.example', aud: 'other', exp: '9999999999' }, NOW)).toEqual({
      iss: ISSUER,
      aud: 'rp',
      exp: NOW_S + JWT_RESPONSE_TTL_SECONDS,
    });
  });
});

describe('authorizationResponseAlg', () => {
  it('is the registered algorithm, else RS256 (JARM), also for a client stored before the field or no longer found', () => {
    expect(authorizationResponseAlg({ authorizationSignedResponseAlg: 'ML-DSA-65' })).toBe('ML-DSA-65');
    expect(authorizationResponseAlg({ authorizationSignedResponseAlg: null })).toBe('RS256');
    expect(authorizationResponseAlg({})).toBe('RS256');
    expect(authorizationResponseAlg(null)).toBe('RS256');
  });

  it('is PS256 for a FAPI 2.0 client that registered none (RS256 is not among the profile algorithms)', () => {
    expect(authorizationResponseAlg({ authorizationSignedResponseAlg: null, fapiProfile: 'fapi2' })).toBe('PS256');
    expect(authorizationResponseAlg({ authorizationSignedResponseAlg: 'ES256', fapiProfile: 'fapi2' })).toBe('ES256');
  });
});
