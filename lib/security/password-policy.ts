// What a new password must be, wherever one is set (`keyflow users create`,
// /account/password): at least 12 characters, at most 1024, not the email
// address, and not a common password. The deny list is the common-passwords
// dictionary of @zxcvbn-ts/language-common (about 49,000 passwords from
// public leak corpora, maintained with zxcvbn-ts; no install script). Few of
// them are 12 characters long, so a password is also refused when what is left
// after the usual decorations is on the list: case, spaces, digits and
// symbols around it ("Password2024!"), or repetitions ("dragondragon").
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password.js';

let denyList: Promise<Set<string>> | null = null;
/** Loaded on first use (its import decompresses the dictionary): processes that never set a password never load it. */
const common = (): Promise<Set<string>> =>
  (denyList ??= import('@zxcvbn-ts/language-common').then(({ dictionary }) => new Set(dictionary['passwords-common'])));

/** The shortest unit the string repeats ("abcabcabc" → "abc"), by the prefix function: linear time. */
function repeatedUnit(s: string): string {
  const border = new Array<number>(s.length).fill(0);
  for (let i = 1, k = 0; i < s.length; i++) {
    while (k > 0 && s[i] !== s[k]) k = border[k - 1]!;
    if (s[i] === s[k]) k++;
    border[i] = k;
  }
  const period = s.length - (border[s.length - 1] ?? 0);
  return period < s.length && s.length % period === 0 ? s.slice(0, period) : s;
}

/** Strips digits, symbols and spaces at both ends (a loop over characters, no regular expression). */
function core(s: string): string {
  const letter = (c: string) => c.toLowerCase() !== c.toUpperCase();
  const chars = [...s];
  let start = 0;
  let end = chars.length;
  while (start < end && !letter(chars[start]!)) start++;
  while (end > start && !letter(chars[end - 1]!)) end--;
  return chars.slice(start, end).join('');
}

/** The forms of a password that are looked up in the deny list. */
function candidates(password: string): string[] {
  const compact = [...password.normalize('NFKC').toLowerCase()].filter((c) => c.trim() !== '').join('');
  // "aaaaaaaaaaaa", "abababababab": no candidate at all, and refused as such.
  if (repeatedUnit(compact).length < 4) return [];
  const stripped = core(compact);
  return [...new Set([compact, stripped, repeatedUnit(compact), repeatedUnit(stripped)])].filter((c) => c.length >= 4);
}

/** True when the password, or what is left of it without decorations, is a common password (or a short unit repeated). */
export async function isCommonPassword(password: string): Promise<boolean> {
  const forms = candidates(password);
  if (forms.length === 0) return true;
  const list = await common();
  return forms.some((c) => list.has(c));
}

/** Why a new password is refused (one sentence for the form or the CLI), or null when it is acceptable. */
export async function passwordProblem(password: string, email?: string): Promise<string | null> {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  if (email && password.trim().toLowerCase() === email.trim().toLowerCase()) return 'must not be your email address';
  if (await isCommonPassword(password)) return 'is too common: choose one that is not on lists of leaked passwords';
  return null;
}
