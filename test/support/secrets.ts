// "No secret in this text" for tests. A one-time code is six digits, which a
// long text of numbers (nanosecond timestamps in a workflow history, ids)
// holds by chance now and then: a code counts as present only as a number of
// its own, not flanked by other digits. Any other secret counts anywhere.
export function expectNoSecret(text: string, secret: string): void {
  if (/^\d+$/.test(secret)) expect(text).not.toMatch(new RegExp(`(?<!\\d)${secret}(?!\\d)`));
  else expect(text).not.toContain(secret);
}
