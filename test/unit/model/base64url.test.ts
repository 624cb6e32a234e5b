// One spelling per value: the strict base64url decoding sealed codes and
// Keyflow's own signatures are read with.
import { randomBytes } from 'node:crypto';
import { decodeBase64urlStrict } from '../../../lib/security/base64url.js';

describe('decodeBase64urlStrict', () => {
  it('decodes the canonical spelling of any length', () => {
    for (let n = 0; n < 40; n++) {
      const bytes = randomBytes(n);
      expect(decodeBase64urlStrict(bytes.toString('base64url'))?.equals(bytes)).toBe(true);
    }
  });

  it('refuses every other spelling of the same bytes, which Node decodes alike', () => {
    const canonical = randomBytes(16).toString('base64url'); // 22 characters: the last carries 2 unused bits
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const flipped = canonical.slice(0, -1) + alphabet[alphabet.indexOf(canonical.at(-1)!) ^ 1];
    for (const other of [`${canonical}=`, `${canonical}==`, `${canonical}!`, ` ${canonical}`, `${canonical.slice(0, 5)}.${canonical.slice(5)}`, flipped]) {
      expect(Buffer.from(other, 'base64url').equals(Buffer.from(canonical, 'base64url'))).toBe(true);
      expect([other, decodeBase64urlStrict(other)]).toEqual([other, null]);
    }
  });

  it('refuses standard base64 characters and impossible lengths', () => {
    expect(decodeBase64urlStrict('ab+/')).toBeNull();
    expect(decodeBase64urlStrict('abcde')).toBeNull();
  });
});
