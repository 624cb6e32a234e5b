// The OIDC standard claims (Core §5.1) a user sets on their profile beyond
// their name and picture: how each value is checked and normalised, and the
// field of the user document that holds it. Every regex here is a single
// character class or fixed-shape optional groups: linear time on any input.
import { z } from 'zod';

/** A postal address as the user document holds it: only the parts set, camelCase keys (never a '.', FerretDB v1). */
export interface PostalAddress {
  formatted?: string;
  streetAddress?: string;
  locality?: string;
  region?: string;
  postalCode?: string;
  country?: string;
}

/** The standard claims' fields of the user document; absent (older documents too): not set. */
export interface ProfileClaimFields {
  givenName?: string;
  familyName?: string;
  middleName?: string;
  nickname?: string;
  /** https URL of the user's profile page. */
  profile?: string;
  /** https URL of the user's web site. */
  website?: string;
  gender?: string;
  /** `YYYY-MM-DD`, `YYYY` or `0000-MM-DD` (year withheld). */
  birthdate?: string;
  /** An IANA time zone the runtime knows, as it names it, or `UTC`. */
  zoneinfo?: string;
  /** A BCP 47 language tag in canonical case (`en-US`). */
  locale?: string;
  /** E.164: `+` and the digits. */
  phoneNumber?: string;
  /** Set only by an administrator; cleared whenever the number changes. Absent: false. */
  phoneNumberVerified?: boolean;
  address?: PostalAddress;
}

/** Each claim a user sets here and the user document's field that holds it. */
export const PROFILE_CLAIM_FIELDS = {
  given_name: 'givenName',
  family_name: 'familyName',
  middle_name: 'middleName',
  nickname: 'nickname',
  profile: 'profile',
  website: 'website',
  gender: 'gender',
  birthdate: 'birthdate',
  zoneinfo: 'zoneinfo',
  locale: 'locale',
  phone_number: 'phoneNumber',
  address: 'address',
} as const satisfies Record<string, keyof ProfileClaimFields>;
export type ProfileClaim = keyof typeof PROFILE_CLAIM_FIELDS;

/** The address claim's members and the stored sub-document's keys. */
export const ADDRESS_PARTS = {
  formatted: 'formatted',
  street_address: 'streetAddress',
  locality: 'locality',
  region: 'region',
  postal_code: 'postalCode',
  country: 'country',
} as const satisfies Record<string, keyof PostalAddress>;
export type AddressPart = keyof typeof ADDRESS_PARTS;

/** The longest value of each field, as typed (the account page's maxlength too). */
export const PROFILE_MAX_LENGTH = {
  given_name: 200,
  family_name: 200,
  middle_name: 200,
  nickname: 200,
  url: 2048,
  gender: 100,
  birthdate: 10,
  zoneinfo: 64,
  locale: 20,
  phone_number: 40,
} as const;

/** The longest value of each address part. */
export const ADDRESS_MAX_LENGTH: Readonly<Record<AddressPart, number>> = {
  formatted: 500,
  street_address: 300,
  locality: 100,
  region: 100,
  postal_code: 20,
  country: 100,
};

// YYYY, or YYYY-MM-DD (0000-MM-DD: the year withheld).
const BIRTHDATE = /^(\d{4})(?:-(\d{2})-(\d{2}))?$/;
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A birthdate as OIDC writes it: a real calendar date, a year alone (not 0000), or month and day with the year 0000. */
export function isBirthdate(value: string): boolean {
  const m = BIRTHDATE.exec(value);
  if (!m) return false;
  const year = Number(m[1]);
  if (m[2] === undefined) return year > 0;
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]!) return false;
  // 29 February only in a leap year, or with the year withheld.
  const leap = year === 0 || (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0));
  return !(month === 2 && day === 29 && !leap);
}

let zones: ReadonlySet<string> | undefined;
const timeZones = (): ReadonlySet<string> => (zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']));

/** The time zone names the runtime knows, plus UTC: what zoneinfo may hold (the account page offers them). */
export const timeZoneNames = (): string[] => [...timeZones()].sort();

const TIME_ZONE_CHARS = /^[A-Za-z0-9_+/-]{1,64}$/;

/**
 * The time zone as the runtime names it, or null when it knows no such zone.
 * An IANA alias the runtime resolves (`Asia/Kolkata`, any case) is kept under
 * the name the runtime lists (`Asia/Calcutta`): what is stored is always in
 * `Intl.supportedValuesOf('timeZone')`, or UTC. Offsets (`+01:00`) are refused.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!TIME_ZONE_CHARS.test(name)) return null;
  if (timeZones().has(name)) return name;
  try {
    const resolved = new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
    return timeZones().has(resolved) ? resolved : null;
  } catch {
    return null;
  }
}

// A language (2-3 letters), an optional script (4 letters), an optional region (2 letters or 3 digits):
// en, fr, en-US, zh-Hant-TW, es-419. Each group has a fixed shape after its '-': no backtracking blow-up.
const LOCALE = /^[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|\d{3}))?$/;

/** The BCP 47 language tag in canonical form (`EN-us` → `en-US`), or null when it is not one. */
export function canonicalLocale(tag: string): string | null {
  if (!LOCALE.test(tag)) return null;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

const PHONE_SEPARATORS = /[ ()-]/g;
const E164 = /^\+[1-9]\d{6,14}$/;

/** The number in E.164 (`+1 (555) 010-0100` → `+15550100100`): spaces, dashes and parentheses dropped; null for anything else. */
export function e164PhoneNumber(typed: string): string | null {
  const compact = typed.replace(PHONE_SEPARATORS, '');
  return E164.test(compact) ? compact : null;
}

// Control characters have no place in a profile; multi-line parts keep their newlines.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f]/;

/** Text of at most `max` characters, trimmed; one line, or several (`\r\n` read as `\n`). */
export function profileText(max: number, lines: 'one' | 'many' = 'one') {
  const base = z.string('must be text');
  return (lines === 'many' ? base.overwrite((v) => v.replace(/\r\n?/g, '\n')) : base)
    .trim()
    .max(max, `must be at most ${max} characters`)
    .refine(
      (v) => !(lines === 'many' ? CONTROL_BUT_NEWLINE : CONTROL).test(v),
      lines === 'many' ? 'must not contain control characters other than newlines' : 'must be one line without control characters',
    );
}

/** An https URL (a picture, a profile page, a web site). */
export const HttpsUrl = z
  .url({ protocol: /^https$/, error: 'must be an https URL' })
  .max(PROFILE_MAX_LENGTH.url, `must be at most ${PROFILE_MAX_LENGTH.url} characters`);

/** Reads a string with `normalise` (null: refused with `problem`). */
const normalised = (max: number, normalise: (v: string) => string | null, problem: string) =>
  z
    .string('must be text')
    .trim()
    .max(max, `must be at most ${max} characters`)
    .transform((v, ctx) => {
      const value = normalise(v);
      if (value === null) ctx.addIssue({ code: 'custom', message: problem, input: v });
      return value ?? z.NEVER;
    });

export const Birthdate = z.string('must be text').trim().refine(isBirthdate, 'must be a date YYYY-MM-DD, a year YYYY, or 0000-MM-DD');
export const ZoneInfo = normalised(PROFILE_MAX_LENGTH.zoneinfo, canonicalTimeZone, 'must be an IANA time zone such as Europe/Paris, or UTC');
export const Locale = normalised(PROFILE_MAX_LENGTH.locale, canonicalLocale, 'must be a language tag such as en-US or fr');
export const PhoneNumber = normalised(
  PROFILE_MAX_LENGTH.phone_number,
  e164PhoneNumber,
  'must be an international number such as +1 555 0100 (a +, the country code, digits; spaces, dashes and parentheses allowed)',
);

/**
 * An optional field of a profile change: absent leaves it as it is, null or
 * "" (or only spaces) clears it, anything else must pass `schema`.
 */
export function clearable<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? null : v), schema.nullable()).optional();
}

/** The address claim as a client sends it: the parts, each clearable; the parts set, or null when none is. */
export const AddressInput = z
  .object(
    {
      // OIDC: the full address and the street address may span lines.
      formatted: clearable(profileText(ADDRESS_MAX_LENGTH.formatted, 'many')),
      street_address: clearable(profileText(ADDRESS_MAX_LENGTH.street_address, 'many')),
      locality: clearable(profileText(ADDRESS_MAX_LENGTH.locality)),
      region: clearable(profileText(ADDRESS_MAX_LENGTH.region)),
      postal_code: clearable(profileText(ADDRESS_MAX_LENGTH.postal_code)),
      country: clearable(profileText(ADDRESS_MAX_LENGTH.country)),
    },
    // Not an object: say what it takes. An unknown part keeps zod's words, which name it.
    {
      error: (issue) =>
        issue.code === 'invalid_type' ? 'must be an object of address parts (formatted, street_address, locality, region, postal_code, country)' : undefined,
    },
  )
  .strict()
  .transform((parts): PostalAddress | null => {
    const address: PostalAddress = {};
    for (const part of Object.keys(ADDRESS_PARTS) as AddressPart[]) {
      const value = parts[part];
      if (value) address[ADDRESS_PARTS[part]] = value;
    }
    return Object.keys(address).length > 0 ? address : null;
  });

/** What a profile change may say of each standard claim (lib/model/users.ts ProfileUpdate). */
export const PROFILE_CLAIM_INPUTS = {
  given_name: clearable(profileText(PROFILE_MAX_LENGTH.given_name)),
  family_name: clearable(profileText(PROFILE_MAX_LENGTH.family_name)),
  middle_name: clearable(profileText(PROFILE_MAX_LENGTH.middle_name)),
  nickname: clearable(profileText(PROFILE_MAX_LENGTH.nickname)),
  profile: clearable(HttpsUrl),
  website: clearable(HttpsUrl),
  gender: clearable(profileText(PROFILE_MAX_LENGTH.gender)),
  birthdate: clearable(Birthdate),
  zoneinfo: clearable(ZoneInfo),
  locale: clearable(Locale),
  phone_number: clearable(PhoneNumber),
  // A new address replaces the whole address: parts left out are not kept.
  address: clearable(AddressInput),
} satisfies Record<ProfileClaim, z.ZodType>;

/** Whether two stored values of a profile field are the same (addresses part by part). */
export function sameFieldValue(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  const [x, y] = [a as PostalAddress, b as PostalAddress];
  return Object.values(ADDRESS_PARTS).every((k) => x[k] === y[k]);
}

/** The address claim of a stored address: the parts set, snake_case; undefined when none is. */
export function addressClaim(address: PostalAddress | undefined): Record<string, string> | undefined {
  if (!address) return undefined;
  const claim: Record<string, string> = {};
  for (const part of Object.keys(ADDRESS_PARTS) as AddressPart[]) {
    const value = address[ADDRESS_PARTS[part]];
    if (value) claim[part] = value;
  }
  return Object.keys(claim).length > 0 ? claim : undefined;
}
