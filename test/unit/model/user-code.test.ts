// User codes of the device flow (RFC 8628 section 6.1): what a person is shown
// and what they may type back.
import { formatUserCode, newUserCode, normalizeUserCode, USER_CODE_ALPHABET, USER_CODE_LENGTH } from '../../../lib/model/user-code.js';

describe('newUserCode', () => {
  it('makes 8 characters of the 20 consonants of RFC 8628 section 6.1: no vowel (no words), no digit', () => {
    expect(USER_CODE_LENGTH).toBe(8);
    expect(USER_CODE_ALPHABET).toBe('BCDFGHJKLMNPQRSTVWXZ');
    const codes = Array.from({ length: 200 }, newUserCode);
    for (const code of codes) expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
    // Random: 200 codes out of 20^8 do not repeat, and between them use every letter.
    expect(new Set(codes).size).toBe(200);
    expect(new Set(codes.join('')).size).toBe(20);
  });

  it('reads back as itself, in either form', () => {
    const code = newUserCode();
    expect(normalizeUserCode(code)).toBe(code);
    expect(normalizeUserCode(formatUserCode(code))).toBe(code);
  });
});

describe('formatUserCode', () => {
  it('shows XXXX-XXXX', () => {
    expect(formatUserCode('BCDFGHJK')).toBe('BCDF-GHJK');
  });
});

describe('normalizeUserCode', () => {
  it.each([
    ['BCDF-GHJK', 'BCDFGHJK'],
    ['bcdf-ghjk', 'BCDFGHJK'],
    [' bcdf ghjk ', 'BCDFGHJK'],
    ['B-C-D-F-G-H-J-K', 'BCDFGHJK'],
    ['bcdf\tghjk\n', 'BCDFGHJK'],
  ])('forgives case, dashes and spaces: %j', (typed, code) => {
    expect(normalizeUserCode(typed)).toBe(code);
  });

  it.each<[string, unknown]>([
    ['too short', 'BCDF-GHJ'],
    ['too long', 'BCDF-GHJKL'],
    ['a vowel', 'BCDF-GHJA'],
    ['a digit', 'BCDF-GHJ1'],
    ['an O for a zero', 'BCDF-GHJO'],
    ['another separator', 'BCDF_GHJK'],
    ['a non-ASCII letter', 'BCDF-GHJÇ'],
    ['over 40 characters, even of separators', `BCDFGHJK${' '.repeat(33)}`],
    ['not text', 12345678],
    ['nothing', undefined],
    ['a list', ['BCDFGHJK']],
  ])('refuses %s', (_name, typed) => {
    expect(normalizeUserCode(typed)).toBeNull();
  });

  it('accepts separators up to 40 characters in all', () => {
    expect(normalizeUserCode(`BCDFGHJK${' '.repeat(32)}`)).toBe('BCDFGHJK');
  });
});
