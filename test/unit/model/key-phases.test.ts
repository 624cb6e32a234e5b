// The phase rules of signing keys (staged rotation, retirement), without a
// database: what every process computes from the stored documents and its clock.
import { keyPhase, publishedUntilFor, RETIRED_KEY_RETENTION_SECONDS, SIGNING_LEAD_SECONDS, signingKeyAt, signsFromFor } from '../../../lib/model/key-phases.js';
import type { SigningKeyDoc } from '../../../lib/model/signing-keys.js';

const T0 = new Date('2025-01-01T00:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
type Doc = Pick<SigningKeyDoc, '_id' | 'alg' | 'generation' | 'status' | 'createdAt' | 'signsFrom' | 'retiredAt' | 'publishedUntil'>;
const key = (generation: number, fields: Partial<Doc> = {}): Doc => ({
  _id: `k${generation}`,
  alg: 'RS256',
  generation,
  status: 'active',
  createdAt: T0,
  signsFrom: fields.createdAt ?? T0,
  retiredAt: null,
  publishedUntil: null,
  ...fields,
});
const phases = (docs: Doc[], now: Date) => docs.map((d) => keyPhase(d, docs, now));

describe('signing key phases', () => {
  it('signs with the first key of an algorithm at once, a rotated one after the lead time', () => {
    expect(signsFromFor(T0, true)).toEqual(T0);
    expect(signsFromFor(T0, false)).toEqual(at(SIGNING_LEAD_SECONDS));
    // Every process's cache (10 s), then every cached JWKS response (max-age 300 s), with a margin.
    expect(SIGNING_LEAD_SECONDS).toBe(610);
  });

  it('publishes a rotated key, then hands signing over at its time', () => {
    const docs = [key(1, { signsFrom: T0 }), key(2, { createdAt: at(100), signsFrom: signsFromFor(at(100), false) })];
    expect(phases(docs, at(100))).toEqual(['signing', 'published']);
    expect(phases(docs, at(100 + SIGNING_LEAD_SECONDS - 1))).toEqual(['signing', 'published']);
    expect(phases(docs, at(100 + SIGNING_LEAD_SECONDS))).toEqual(['previous', 'signing']);
    expect(signingKeyAt(docs, 'RS256', at(100 + SIGNING_LEAD_SECONDS))?._id).toBe('k2');
    expect(signingKeyAt(docs, 'ML-DSA-65', at(0))).toBeUndefined();
  });

  it('keeps a retired key published until the tokens it signed have expired, with margins', () => {
    expect(RETIRED_KEY_RETENTION_SECONDS).toBe(3600 + 10 + 300);
    const retiredAt = at(1000);
    const docs = [key(1, { status: 'retired', retiredAt, publishedUntil: publishedUntilFor(retiredAt) }), key(2, { signsFrom: T0 })];
    expect(phases(docs, at(1000 + RETIRED_KEY_RETENTION_SECONDS - 1))).toEqual(['retiring', 'signing']);
    expect(phases(docs, at(1000 + RETIRED_KEY_RETENTION_SECONDS))).toEqual(['removed', 'signing']);
  });

  it('never signs with a retired key, even one that was due', () => {
    const docs = [key(1, { signsFrom: T0 }), key(2, { status: 'retired', signsFrom: at(10), retiredAt: at(5), publishedUntil: publishedUntilFor(at(5)) })];
    expect(phases(docs, at(20))).toEqual(['signing', 'retiring']);
  });

  it('signs with the key due first on a clock behind the one that stored the keys', () => {
    // The first key, made on a host whose clock is ahead.
    expect(phases([key(1, { signsFrom: at(5) })], at(0))).toEqual(['signing']);
    // The previous key was retired (on a clock ahead) before this clock reached the new key's time.
    const docs = [key(1, { status: 'retired', retiredAt: at(0), publishedUntil: publishedUntilFor(at(0)) }), key(2, { signsFrom: at(3) })];
    expect(phases(docs, at(0))).toEqual(['retiring', 'signing']);
  });
});
