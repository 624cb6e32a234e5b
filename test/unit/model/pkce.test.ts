import { isValidCodeVerifier, isValidS256Challenge, s256Challenge, verifyPkce } from '../../../lib/model/pkce.js';

// RFC 7636 Appendix B (the challenge is the one printed in the RFC; openssl agrees).
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('s256Challenge', () => {
  it('computes the RFC 7636 Appendix B vector', () => {
    expect(s256Challenge(RFC_VERIFIER)).toBe(RFC_CHALLENGE);
  });

  it('produces a valid unpadded base64url challenge', () => {
    const c = s256Challenge('a'.repeat(128));
    expect(isValidS256Challenge(c)).toBe(true);
    expect(c).not.toMatch(/[=+/]/);
  });
});

describe('isValidCodeVerifier', () => {
  it.each([
    ['42 characters', 'a'.repeat(42), false],
    ['43 characters', 'a'.repeat(43), true],
    ['128 characters', 'a'.repeat(128), true],
    ['129 characters', 'a'.repeat(129), false],
    ['empty', '', false],
    ['the RFC example', RFC_VERIFIER, true],
    ['all unreserved characters', 'AZaz09-._~'.repeat(5), true],
    ['a space', `${'a'.repeat(42)} `, false],
    ['a plus', `${'a'.repeat(42)}+`, false],
    ['a slash', `${'a'.repeat(42)}/`, false],
    ['padding', `${'a'.repeat(42)}=`, false],
    ['a percent escape', `${'a'.repeat(40)}%41`, false],
    ['a non-ASCII letter', `${'a'.repeat(42)}é`, false],
    ['a trailing newline', `${'a'.repeat(43)}\n`, false],
  ])('%s -> %s', (_name, verifier, expected) => {
    expect(isValidCodeVerifier(verifier)).toBe(expected);
  });
});

describe('isValidS256Challenge', () => {
  it.each([
    ['the RFC example', RFC_CHALLENGE, true],
    ['42 characters', RFC_CHALLENGE.slice(0, 42), false],
    ['44 characters', `${RFC_CHALLENGE}A`, false],
    ['padded', `${RFC_CHALLENGE}=`, false],
    ['standard base64 characters', `${RFC_CHALLENGE.slice(0, 41)}+/`, false],
    ['a dot (allowed in verifiers, not in base64url)', `${RFC_CHALLENGE.slice(0, 42)}.`, false],
    ['empty', '', false],
  ])('%s -> %s', (_name, challenge, expected) => {
    expect(isValidS256Challenge(challenge)).toBe(expected);
  });
});

describe('verifyPkce', () => {
  it.each([
    ['the RFC pair', RFC_VERIFIER, RFC_CHALLENGE, true],
    ['a well-formed challenge sharing a prefix', RFC_VERIFIER, 'E9Melhoa2OwvFrEMTJguCQaoWL3lT4R7ZIDmWXzjnMo', false],
    ['another verifier', `${RFC_VERIFIER.slice(0, -1)}l`, RFC_CHALLENGE, false],
    ['the challenge as verifier', RFC_CHALLENGE, RFC_CHALLENGE, false],
    ['a plain challenge (verifier == challenge)', 'a'.repeat(43), 'a'.repeat(43), false],
    ['a challenge of another length', RFC_VERIFIER, `${RFC_CHALLENGE}=`, false],
    ['an empty challenge', RFC_VERIFIER, '', false],
    ['a too-short verifier', 'a'.repeat(42), s256Challenge('a'.repeat(42)), false],
    ['a verifier with bad characters', `${'a'.repeat(42)}+`, s256Challenge(`${'a'.repeat(42)}+`), false],
    ['a fresh valid pair', 'x'.repeat(128), s256Challenge('x'.repeat(128)), true],
  ])('%s -> %s', (_name, verifier, challenge, expected) => {
    expect(verifyPkce(verifier, challenge)).toBe(expected);
  });
});
