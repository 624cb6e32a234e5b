// Which algorithm signs an access token: RS256 for resource servers unless the
// client or every resource opts into ML-DSA-65; PS256 for FAPI 2.0.
import { accessTokenAlg } from '../../../lib/model/access-token-alg.js';

const PQ = 'https://pq.example/';
const OTHER = 'https://other.example/';

describe('accessTokenAlg', () => {
  it('is RS256 by default, whatever resources a token has, and PS256 for a FAPI 2.0 client', () => {
    expect(accessTokenAlg({}, [], [PQ])).toBe('RS256');
    expect(accessTokenAlg({}, [OTHER], [PQ])).toBe('RS256');
    expect(accessTokenAlg({ fapiProfile: 'fapi2' }, [], [])).toBe('PS256');
  });

  it('is ML-DSA-65 when every resource of the token verifies it, not when one does not', () => {
    expect(accessTokenAlg({}, [PQ], [PQ])).toBe('ML-DSA-65');
    expect(accessTokenAlg({}, [PQ, OTHER], [PQ])).toBe('RS256');
  });

  it("is the client's own choice first", () => {
    expect(accessTokenAlg({ accessTokenSignedResponseAlg: 'ML-DSA-65' }, [], [])).toBe('ML-DSA-65');
    expect(accessTokenAlg({ accessTokenSignedResponseAlg: 'ES256' }, [PQ], [PQ])).toBe('ES256');
  });
});
