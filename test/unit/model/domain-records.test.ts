// The rules that decide what a stored document becomes, now in lib/model:
// checked here without a database.
import { newClient, replacedClient, withNewClientSecret } from '../../../lib/model/client-secrets.js';
import { ValidationError } from '../../../lib/model/errors.js';
import { cappedPatExpiry, patAccess, type PersonalAccessTokenDoc } from '../../../lib/model/personal-access-tokens.js';
import { pushedRequestRefusal, requestUriFor, requestUriOpaque, type ParRequestDoc } from '../../../lib/model/pushed-request.js';
import { backoffCapacity, windowOf } from '../../../lib/model/rate-limits.js';
import { SECRET_IS_SET, siteSettingsFrom } from '../../../lib/model/site-settings.js';
import { profileChanges } from '../../../lib/model/users.js';
import { hashSecret } from '../../../lib/security/secrets.js';

const app = { name: 'App', redirectUris: [{ type: 'equals' as const, value: 'https://rp.example/cb' }] };
const DAY = 86_400_000;

describe('client documents', () => {
  it('gives a secret (stored as its hash) only to clients that authenticate with one', () => {
    const confidential = newClient(app);
    expect(confidential.clientSecret).not.toBeNull();
    expect(confidential.client.secretHash).toBe(hashSecret(confidential.clientSecret!));
    const pub = newClient({ ...app, public: true });
    expect(pub.clientSecret).toBeNull();
    expect(pub.client.secretHash).toBeNull();
  });

  it('refuses what the model refuses', () => {
    expect(() => newClient({ ...app, redirectUris: [] })).toThrow(ValidationError);
  });

  it('keeps, drops or makes the secret as the authentication method changes', () => {
    const { client } = newClient(app, { registrationTokenHash: 'rt' });
    const kept = replacedClient(client, { ...app, name: 'Renamed' });
    expect(kept).toMatchObject({
      clientSecret: null,
      client: { _id: client._id, secretHash: client.secretHash, registrationTokenHash: 'rt', name: 'Renamed' },
    });
    const dropped = replacedClient(client, { ...app, public: true });
    expect(dropped.client.secretHash).toBeNull();
    const made = replacedClient(dropped.client, app);
    expect(made.client.secretHash).toBe(hashSecret(made.clientSecret!));
  });

  it('rotates the secret of a confidential client only', () => {
    const { client } = newClient(app);
    const rotated = withNewClientSecret(client);
    expect(rotated!.client.secretHash).toBe(hashSecret(rotated!.clientSecret!));
    expect(rotated!.client.secretHash).not.toBe(client.secretHash);
    expect(withNewClientSecret(newClient({ ...app, public: true }).client)).toBeNull();
  });
});

describe('pushed requests', () => {
  const now = new Date();
  const doc = { _id: 'h', clientId: 'c1', expiresAt: new Date(now.getTime() + 1000) } as ParRequestDoc;

  it('reads back only request_uris Keyflow could have issued', () => {
    expect(requestUriOpaque(requestUriFor('abc'))).toBe('abc');
    expect(requestUriOpaque('urn:other:abc')).toBeNull();
    expect(requestUriOpaque(requestUriFor('x'.repeat(101)))).toBeNull();
  });

  it('refuses another client and an expired request', () => {
    expect(pushedRequestRefusal(doc, 'c1', now)).toBeNull();
    expect(pushedRequestRefusal(doc, 'c2', now)).toBe('other-client');
    expect(pushedRequestRefusal(doc, 'c1', new Date(now.getTime() + 1000))).toBe('expired');
  });
});

describe('personal access tokens', () => {
  const createdAt = new Date('2025-01-01T00:00:00Z');
  const token: PersonalAccessTokenDoc = {
    _id: 'h',
    id: 't1',
    userId: 'u1',
    name: 'ci',
    scope: ['profile:write', 'admin:users:read'],
    createdAt,
    expiresAt: null,
  };

  it('caps tokens without an expiry or outliving the maximum lifetime, and leaves the others', () => {
    expect(cappedPatExpiry(token, 30 * DAY)).toEqual(new Date(createdAt.getTime() + 30 * DAY));
    expect(cappedPatExpiry({ createdAt, expiresAt: new Date(createdAt.getTime() + 40 * DAY) }, 30 * DAY)).toEqual(new Date(createdAt.getTime() + 30 * DAY));
    expect(cappedPatExpiry({ createdAt, expiresAt: new Date(createdAt.getTime() + 10 * DAY) }, 30 * DAY)).toBeNull();
  });

  it('lets admin scopes lapse when the user is no longer an admin', () => {
    expect(patAccess(token, 'admin').scope).toEqual(['profile:write', 'admin:users:read']);
    expect(patAccess(token, 'user').scope).toEqual(['profile:write']);
    expect(patAccess(token, 'user')).toMatchObject({
      userId: 'u1',
      clientId: 'pat:t1',
      grantId: 'pat:t1',
      claims: { sub: 'u1', token_type: 'personal_access_token' },
    });
  });
});

describe('other rules', () => {
  it('changes only the profile fields that differ', () => {
    expect(profileChanges({ name: 'A', picture: null }, { name: 'A', picture: 'https://p.example/a.png' })).toEqual({
      set: { picture: 'https://p.example/a.png' },
      unset: [],
      changed: ['picture'],
    });
    expect(profileChanges({ name: 'A', picture: null }, {})).toEqual({ set: {}, unset: [], changed: [] });
  });

  it('shows a set secret setting masked and fills in defaults', () => {
    const settings = siteSettingsFrom({ captcha_secret_key: 'shh', captcha_provider: 'pow' });
    expect(settings.captcha_secret_key).toBe(SECRET_IS_SET);
    expect(settings.captcha_provider).toBe('pow');
    expect(settings.pow_difficulty).toBe(18);
  });

  it('halves a backoff rule per used-up window, down to one attempt', () => {
    const rule = { max: 10, windowMs: 60_000, backoff: true };
    expect([0, 1, 2, 3, 4].map((s) => backoffCapacity(rule, s))).toEqual([10, 5, 2, 1, 1]);
    expect(backoffCapacity({ max: 10, windowMs: 60_000 }, 3)).toBe(10);
    expect(windowOf(rule, 125_000)).toEqual({ index: 2, end: 180_000 });
  });
});
