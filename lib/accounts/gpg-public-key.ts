// Reading a pasted GPG public key with openpgp: one public key, valid now
// (not revoked, not expired, a good self-signature), or a ValidationError
// whose words tell the person what to paste instead.
import { enums, readKeys, unarmor, type AlgorithmInfo, type Key, type Subkey } from 'openpgp';
import { ValidationError } from '../model/errors.js';
import { MAX_ARMORED_KEY_LENGTH, type GpgSubkey, type ParsedGpgKey } from '../model/gpg-keys.js';
import { currentDate } from '../runtime/clock.js';

const EXPORT_HINT = 'paste the output of `gpg --armor --export <key id>`';

const refuse = (reason: string): never => {
  throw new ValidationError([`armored_public_key: ${reason}`]);
};

/** A short algorithm name: `rsa3072`, `ed25519`, `ecdsa/p256`, `eddsaLegacy/ed25519Legacy`. */
function algorithmName(info: AlgorithmInfo): string {
  if (info.algorithm.startsWith('rsa')) return `rsa${info.bits ?? ''}`;
  return info.curve ? `${info.algorithm}/${info.curve}` : info.algorithm;
}

/** openpgp's expiry (a Date, Infinity for never, null when unknown) as a date or null for never. */
function expiryOf(value: Date | number | null): Date | null {
  return value instanceof Date ? value : null;
}

async function subkeyOf(s: Subkey, now: Date): Promise<GpgSubkey> {
  // A subkey without a valid binding signature has no expiry to report.
  const expires = await s.getExpirationTime(now).catch(() => null);
  return {
    fingerprint: s.getFingerprint().toUpperCase(),
    keyId: s.getKeyID().toHex().toUpperCase(),
    algorithm: algorithmName(s.getAlgorithmInfo()),
    createdAt: s.getCreationTime(),
    expiresAt: expiryOf(expires),
  };
}

/** The one key of an armored public key block, or a refusal saying why not. */
async function onlyPublicKey(armored: string): Promise<Key> {
  if (armored.length > MAX_ARMORED_KEY_LENGTH) refuse(`must be at most ${MAX_ARMORED_KEY_LENGTH / 1024} KiB`);
  if (armored.split('-----BEGIN PGP ').length > 2) refuse('holds more than one armored block: add one key at a time');
  const block = await unarmor(armored).catch(() => null);
  if (!block) return refuse(`is not an ASCII-armored OpenPGP public key; ${EXPORT_HINT}`);
  if (block.type === enums.armor.privateKey) refuse(`is a private key: never share it; ${EXPORT_HINT}`);
  if (block.type !== enums.armor.publicKey) refuse(`is an armored block but not a public key; ${EXPORT_HINT}`);
  const keys = await readKeys({ armoredKeys: armored }).catch(() => null);
  if (!keys || keys.length === 0) return refuse(`could not be read as an OpenPGP public key; ${EXPORT_HINT}`);
  if (keys.length > 1) refuse('holds more than one key: add one key at a time');
  const key = keys[0]!;
  if (key.isPrivate()) refuse(`holds private key material: never share it; ${EXPORT_HINT}`);
  return key;
}

/** Reads and checks a pasted public key as of `now`. */
export async function parsePublicKey(armored: string, now = currentDate()): Promise<ParsedGpgKey> {
  const key = await onlyPublicKey(armored);
  if (await key.isRevoked(undefined, undefined, now).catch(() => false)) refuse('this key is revoked');
  const expires = await key.getExpirationTime().catch(() => null);
  if (expires instanceof Date && expires.getTime() <= now.getTime()) refuse(`this key expired on ${expires.toISOString().slice(0, 10)}`);
  try {
    await key.verifyPrimaryKey(now);
  } catch {
    // Expiry and revocation are answered above; what is left is a key openpgp cannot trust (bad self-signature, weak algorithm).
    refuse('this key has no valid self-signature (or uses an algorithm that is no longer accepted)');
  }
  const primary = await key.getPrimaryUser(now).catch(() => null);
  return {
    fingerprint: key.getFingerprint().toUpperCase(),
    keyId: key.getKeyID().toHex().toUpperCase(),
    name: primary?.user.userID?.userID ?? '',
    algorithm: algorithmName(key.getAlgorithmInfo()),
    subkeys: await Promise.all(key.getSubkeys().map((s) => subkeyOf(s, now))),
    createdAt: key.getCreationTime(),
    expiresAt: expiryOf(expires),
    armored: key.armor(),
  };
}
