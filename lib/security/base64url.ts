// One decoding for every base64url value Keyflow accepts from outside and
// trusts by its spelling (sealed codes, JWS signatures it verifies itself).
// Node's own decoder is lenient: it skips characters outside the alphabet,
// stops at `=`, and ignores the unused bits of the last character, so many
// strings decode to the same bytes. A value that is single use by its spelling
// would then be usable once per spelling. Here a value decodes only from its
// one canonical spelling (RFC 4648 §5 without padding, unused bits zero):
// encoding the bytes again must give back the very string.

/** base64url alphabet only, no padding. Linear. */
const ALPHABET = /^[A-Za-z0-9_-]*$/;

/** The bytes of `value` when it is canonical base64url (RFC 4648 §5, unpadded); null for any other spelling. */
export function decodeBase64urlStrict(value: string): Buffer | null {
  if (!ALPHABET.test(value) || value.length % 4 === 1) return null;
  const bytes = Buffer.from(value, 'base64url');
  return bytes.toString('base64url') === value ? bytes : null;
}
