// A user's GPG keys: what the API accepts as a new key, and how a key is shown
// by the API and in the opt-in gpg_keys claim (never its armored block).
import { zodProblems } from '../../../lib/model/errors.js';
import { GpgKeyId, gpgKeyClaim, gpgKeyJson, MAX_ARMORED_KEY_LENGTH, newGpgKey, NewGpgKeyInput, type ParsedGpgKey } from '../../../lib/model/gpg-keys.js';

const parsed: ParsedGpgKey = {
  fingerprint: 'A'.repeat(40),
  keyId: 'A'.repeat(16),
  name: 'Ann <ann@example.com>',
  algorithm: 'ed25519',
  subkeys: [{ fingerprint: 'B'.repeat(40), keyId: 'B'.repeat(16), algorithm: 'x25519', createdAt: new Date('2024-01-01T00:00:00Z'), expiresAt: null }],
  createdAt: new Date('2024-01-01T00:00:00Z'),
  expiresAt: new Date('2026-01-01T00:00:00Z'),
  armored: '-----BEGIN PGP PUBLIC KEY BLOCK-----\n...\n-----END PGP PUBLIC KEY BLOCK-----',
};

describe('NewGpgKeyInput', () => {
  const problems = (body: unknown) => {
    const r = NewGpgKeyInput.safeParse(body);
    return r.success ? [] : zodProblems(r.error.issues);
  };

  it('takes an armored key, trimmed', () => {
    expect(NewGpgKeyInput.parse({ armored_public_key: `  ${parsed.armored}\n` })).toEqual({ armored_public_key: parsed.armored });
  });

  it.each<[string, unknown, string]>([
    ['no key', {}, 'armored_public_key: must be a string: the ASCII-armored public key'],
    ['a key that is not text', { armored_public_key: 1 }, 'armored_public_key: must be a string: the ASCII-armored public key'],
    ['a blank key', { armored_public_key: ' \n ' }, 'armored_public_key: must not be empty'],
    ['a key over 64 KiB', { armored_public_key: 'k'.repeat(MAX_ARMORED_KEY_LENGTH + 1) }, 'armored_public_key: must be at most 64 KiB'],
  ])('refuses %s', (_name, body, problem) => {
    expect(problems(body)).toEqual([problem]);
  });
});

describe('a stored key', () => {
  const key = newGpgKey('u1', parsed, new Date('2025-01-01T00:00:00Z'));

  it('gets an id that paths accept', () => {
    expect(GpgKeyId.safeParse(key._id).success).toBe(true);
    expect(GpgKeyId.safeParse('../etc').success).toBe(false);
    expect(key).toMatchObject({ userId: 'u1', addedAt: new Date('2025-01-01T00:00:00Z'), fingerprint: parsed.fingerprint });
  });

  it('is shown by the API with its subkeys and dates, without the armored block', () => {
    expect(gpgKeyJson(key)).toEqual({
      id: key._id,
      fingerprint: 'A'.repeat(40),
      key_id: 'A'.repeat(16),
      name: 'Ann <ann@example.com>',
      algorithm: 'ed25519',
      subkeys: [{ fingerprint: 'B'.repeat(40), key_id: 'B'.repeat(16), algorithm: 'x25519', created_at: '2024-01-01T00:00:00.000Z', expires_at: null }],
      created_at: '2024-01-01T00:00:00.000Z',
      expires_at: '2026-01-01T00:00:00.000Z',
      added_at: '2025-01-01T00:00:00.000Z',
    });
    expect(gpgKeyClaim(key)).toEqual({ id: key._id, fingerprint: 'A'.repeat(40), key_id: 'A'.repeat(16), name: 'Ann <ann@example.com>' });
  });
});
