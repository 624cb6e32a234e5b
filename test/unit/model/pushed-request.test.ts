// Pushed authorization requests (RFC 9126): the request_uri a client gets,
// which ones Keyflow reads back, and when a stored request may no longer be
// used. (Basics also in domain-records.test.ts.)
import { PAR_REQUEST_URI_PREFIX } from '../../../lib/model/authorization-request.js';
import {
  PAR_REQUEST_TTL_SECONDS,
  PAR_REUSE_MEMORY_MS,
  pushedRequestRefusal,
  requestUriFor,
  requestUriOpaque,
  type ParRequestDoc,
} from '../../../lib/model/pushed-request.js';

describe('request_uri', () => {
  it('is the RFC 9126 URN with the opaque part, read back as that part', () => {
    expect(PAR_REQUEST_URI_PREFIX).toBe('urn:ietf:params:oauth:request_uri:');
    expect(requestUriFor('abc')).toBe('urn:ietf:params:oauth:request_uri:abc');
    expect(requestUriOpaque(requestUriFor('x'.repeat(100)))).toBe('x'.repeat(100));
  });

  it('reads nothing from another URI or an opaque part longer than Keyflow issues', () => {
    expect(requestUriOpaque('https://rp.example/r.jwt')).toBeNull();
    expect(requestUriOpaque('URN:IETF:PARAMS:OAUTH:REQUEST_URI:abc')).toBeNull();
    expect(requestUriOpaque(requestUriFor('x'.repeat(101)))).toBeNull();
  });
});

describe('pushedRequestRefusal', () => {
  const now = new Date('2025-01-01T00:00:00Z');
  const doc = { _id: 'h', clientId: 'rp', createdAt: now, expiresAt: new Date(now.getTime() + PAR_REQUEST_TTL_SECONDS * 1000) } as ParRequestDoc;

  it('lets the client that pushed it use it within its 90 seconds', () => {
    expect(PAR_REQUEST_TTL_SECONDS).toBe(90);
    expect(pushedRequestRefusal(doc, 'rp', now)).toBeNull();
    expect(pushedRequestRefusal(doc, 'rp', new Date(doc.expiresAt.getTime() - 1))).toBeNull();
  });

  it('refuses it at its expiry, and to another client first (whatever the time)', () => {
    expect(pushedRequestRefusal(doc, 'rp', doc.expiresAt)).toBe('expired');
    expect(pushedRequestRefusal(doc, 'other', now)).toBe('other-client');
    expect(pushedRequestRefusal(doc, 'other', doc.expiresAt)).toBe('other-client');
  });

  it('remembers a used request_uri well after it expired, to recognise a late second use', () => {
    expect(PAR_REUSE_MEMORY_MS).toBeGreaterThan(PAR_REQUEST_TTL_SECONDS * 1000);
  });
});
