// The sender constraint of refresh tokens: which DPoP key a refresh token is
// bound to, and which retry window it gets.
import { refreshRetryWindowMs, refreshTokenJkt } from '../../../lib/model/refresh-binding.js';

const windows = { defaultMs: 30_000, publicUnboundMs: 0 };
const confidential = { public: false };
const publicClient = { public: true };
const fapi = { public: false, fapiProfile: 'fapi2' as const };

describe('refreshTokenJkt', () => {
  it("binds to the proof's key outside FAPI 2.0, for public and confidential clients", () => {
    expect(refreshTokenJkt(publicClient, 'k1')).toBe('k1');
    expect(refreshTokenJkt(confidential, 'k1')).toBe('k1');
    expect(refreshTokenJkt(confidential, undefined)).toBeUndefined();
  });

  it('keeps a bound token bound to its own key, whatever the proof or profile', () => {
    expect(refreshTokenJkt(confidential, 'k2', 'k1')).toBe('k1');
    expect(refreshTokenJkt(fapi, 'k2', 'k1')).toBe('k1');
    expect(refreshTokenJkt(publicClient, undefined, 'k1')).toBe('k1');
  });

  it("leaves a FAPI 2.0 client's refresh token unbound (RFC 9449 §5)", () => {
    expect(refreshTokenJkt(fapi, 'k1')).toBeUndefined();
  });
});

describe('refreshRetryWindowMs', () => {
  it("gives a public client's unbound token the public window, everything else the default", () => {
    expect(refreshRetryWindowMs(publicClient, undefined, windows)).toBe(0);
    expect(refreshRetryWindowMs(publicClient, 'k1', windows)).toBe(30_000);
    expect(refreshRetryWindowMs(confidential, undefined, windows)).toBe(30_000);
    expect(refreshRetryWindowMs(fapi, undefined, { defaultMs: 5_000, publicUnboundMs: 0 })).toBe(5_000);
  });
});
