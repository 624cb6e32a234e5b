// The checks of the standard claims a user sets on their profile: birthdate,
// time zone, language tag, phone number, address and text, each normalised or
// refused naming the field; and what a change sets, clears and reports.
import { zodProblems } from '../../../lib/model/errors.js';
import { canonicalLocale, canonicalTimeZone, e164PhoneNumber, isBirthdate, timeZoneNames } from '../../../lib/model/profile-fields.js';
import { profileChanges, ProfileUpdate } from '../../../lib/model/users.js';

const problems = (body: unknown) => {
  const parsed = ProfileUpdate.safeParse(body);
  return parsed.success ? [] : zodProblems(parsed.error.issues);
};

describe('birthdate', () => {
  it('takes YYYY-MM-DD, YYYY, and 0000-MM-DD (year withheld)', () => {
    for (const ok of ['1990-05-17', '2000-02-29', '1987', '0000-02-29', '0000-12-31']) expect({ ok, valid: isBirthdate(ok) }).toEqual({ ok, valid: true });
  });

  it('refuses dates that do not exist and other shapes', () => {
    for (const bad of [
      '1990-13-01',
      '1990-00-10',
      '1990-04-31',
      '1900-02-29',
      '2023-02-29',
      '0000',
      '90-05-17',
      '1990-5-17',
      '1990/05/17',
      '1990-05-17T00:00',
      ' 1990',
      '',
    ]) {
      expect({ bad, valid: isBirthdate(bad) }).toEqual({ bad, valid: false });
    }
  });
});

describe('zoneinfo', () => {
  it('takes the time zones the runtime lists, and UTC', () => {
    expect(canonicalTimeZone('Europe/Paris')).toBe('Europe/Paris');
    expect(canonicalTimeZone('America/Argentina/Buenos_Aires') ?? canonicalTimeZone('America/Buenos_Aires')).toBeTruthy();
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(timeZoneNames()).toEqual(expect.arrayContaining(['UTC', 'Europe/Paris']));
    for (const zone of timeZoneNames()) expect(canonicalTimeZone(zone)).toBe(zone);
  });

  it('keeps an alias under the name the runtime lists', () => {
    const kolkata = canonicalTimeZone('Asia/Kolkata');
    expect(kolkata === 'Asia/Kolkata' || kolkata === 'Asia/Calcutta').toBe(true);
    expect(timeZoneNames()).toContain(kolkata);
    expect(canonicalTimeZone('utc')).toBe('UTC');
  });

  it('refuses unknown zones, offsets and odd characters', () => {
    for (const bad of ['Mars/Olympus_Mons', '+01:00', 'Europe/Paris ', 'Europe/../Paris\u0000', '', 'x'.repeat(65)]) expect(canonicalTimeZone(bad)).toBeNull();
  });
});

describe('locale', () => {
  it('takes language, script and region tags, in canonical case', () => {
    expect(canonicalLocale('en-US')).toBe('en-US');
    expect(canonicalLocale('fr')).toBe('fr');
    expect(canonicalLocale('EN-us')).toBe('en-US');
    expect(canonicalLocale('zh-Hant-TW')).toBe('zh-Hant-TW');
    expect(canonicalLocale('es-419')).toBe('es-419');
  });

  it('refuses what is not such a tag', () => {
    for (const bad of ['en_US', 'english', 'e', 'en-', 'en-USA1', '-en', 'en US', '', '12'])
      expect({ bad, tag: canonicalLocale(bad) }).toEqual({ bad, tag: null });
  });

  it('answers at once on long hostile input (linear-time patterns)', () => {
    const started = performance.now();
    for (const input of ['a-'.repeat(50_000), `${'aaaa-'.repeat(20_000)}!`, '1'.repeat(100_000)]) {
      canonicalLocale(input);
      canonicalTimeZone(input);
      e164PhoneNumber(input);
      isBirthdate(input);
    }
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('phone_number', () => {
  it('stores E.164 after dropping spaces, dashes and parentheses', () => {
    expect(e164PhoneNumber('+1 555 0100')).toBe('+15550100');
    expect(e164PhoneNumber('+44 (20) 7946-0958')).toBe('+442079460958');
    expect(e164PhoneNumber('+33612345678')).toBe('+33612345678');
  });

  it('refuses anything else', () => {
    for (const bad of ['555 0100', '+0 555 0100', '+1 555 0100 ext. 7', '+1.555.0100', '+1555', '+1234567890123456', 'tel:+15550100', '']) {
      expect({ bad, number: e164PhoneNumber(bad) }).toEqual({ bad, number: null });
    }
  });
});

describe('a profile change', () => {
  it('reads each field, normalised, and "" or null as clearing it', () => {
    const parsed = ProfileUpdate.parse({
      given_name: '  Ada ',
      family_name: null,
      middle_name: '',
      website: 'https://ada.example',
      zoneinfo: 'Europe/London',
      locale: 'en-gb',
      phone_number: '+44 20 7946 0958',
      address: { formatted: 'Line one\r\nLine two', locality: 'London', region: '', country: 'UK' },
    });
    expect(parsed).toEqual({
      given_name: 'Ada',
      family_name: null,
      middle_name: null,
      website: 'https://ada.example',
      zoneinfo: 'Europe/London',
      locale: 'en-GB',
      phone_number: '+442079460958',
      address: { formatted: 'Line one\nLine two', locality: 'London', country: 'UK' },
    });
    expect(ProfileUpdate.parse({ address: { locality: ' ', country: null } })).toEqual({ address: null });
    expect(ProfileUpdate.parse({ address: '' })).toEqual({ address: null });
  });

  it('refuses bad values naming the field', () => {
    const cases: [unknown, RegExp][] = [
      [{ zoneinfo: 'Mars/Base' }, /^zoneinfo: must be an IANA time zone/],
      [{ locale: 'english' }, /^locale: must be a language tag/],
      [{ birthdate: '1990-02-30' }, /^birthdate: must be a date/],
      [{ profile: 'http://ada.example' }, /^profile: must be an https URL/],
      [{ website: 'javascript:alert(1)' }, /^website: must be an https URL/],
      [{ phone_number: '0100' }, /^phone_number: must be an international number/],
      [{ given_name: 42 }, /^given_name: must be text/],
      [{ nickname: 'a\u0007b' }, /^nickname: must be one line/],
      [{ gender: 'x'.repeat(101) }, /^gender: must be at most 100 characters/],
      [{ address: { postal_code: 12345 } }, /^address\.postal_code: must be text/],
      [{ address: { street: 'Main St' } }, /^address: Unrecognized key: "street"/],
      [{ address: ['Main St'] }, /^address: must be an object of address parts/],
      [{ address: { locality: 'Line\nbreak' } }, /^address\.locality: must be one line/],
      [{ phone_number_verified: true }, /phone_number_verified/],
      [{ email: 'x@example.com' }, /email/],
    ];
    for (const [body, message] of cases) expect({ body, problems: problems(body) }).toEqual({ body, problems: [expect.stringMatching(message)] });
  });

  it('sets, clears and reports claim names; a new phone number loses its verified mark', () => {
    const before = {
      name: 'Ada',
      picture: null,
      givenName: 'Ada',
      phoneNumber: '+15550100',
      phoneNumberVerified: true,
      address: { locality: 'London', country: 'UK' },
    };
    expect(profileChanges(before, ProfileUpdate.parse({ given_name: 'Ada', address: { country: 'UK', locality: 'London' } }))).toEqual({
      set: {},
      unset: [],
      changed: [],
    });
    expect(
      profileChanges(before, ProfileUpdate.parse({ given_name: '', family_name: 'Lovelace', phone_number: '+1 555 0101', address: { locality: 'Paris' } })),
    ).toEqual({
      set: { familyName: 'Lovelace', phoneNumber: '+15550101', address: { locality: 'Paris' } },
      unset: ['givenName', 'phoneNumberVerified'],
      changed: ['given_name', 'family_name', 'phone_number', 'address', 'phone_number_verified'],
    });
    expect(profileChanges(before, ProfileUpdate.parse({ phone_number: null }))).toEqual({
      set: {},
      unset: ['phoneNumber', 'phoneNumberVerified'],
      changed: ['phone_number', 'phone_number_verified'],
    });
  });
});
