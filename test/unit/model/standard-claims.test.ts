// standardClaims and SCOPE_CLAIMS: the values of the claims a user has, of
// the right types; a claim without a value is left out, never null or "".
import { SCOPE_CLAIMS, scopedUserClaims, standardClaims, type ClaimsUser } from '../../../lib/model/claims.js';

const UPDATED = new Date('2024-03-01T12:00:00.750Z');

const bare: ClaimsUser = {
  _id: 'u1',
  email: 'ada@example.com',
  emailVerified: false,
  username: 'ada',
  name: '',
  picture: null,
  role: 'user',
  updatedAt: UPDATED,
};

const full: ClaimsUser = {
  ...bare,
  name: 'Ada Lovelace',
  picture: 'https://img.example/ada.png',
  givenName: 'Ada',
  familyName: 'Lovelace',
  middleName: 'King',
  nickname: 'Countess',
  profile: 'https://ada.example/about',
  website: 'https://ada.example',
  gender: 'female',
  birthdate: '1815-12-10',
  zoneinfo: 'Europe/London',
  locale: 'en-GB',
  phoneNumber: '+442079460958',
  address: { formatted: '12 St James’s Square\nLondon', locality: 'London', postalCode: 'SW1Y 4JH', country: 'UK' },
};

const ALL = Object.values(SCOPE_CLAIMS).flat();

describe('standardClaims', () => {
  it('gives every claim the user has, with its type', () => {
    expect(standardClaims(full, ALL)).toEqual({
      name: 'Ada Lovelace',
      family_name: 'Lovelace',
      given_name: 'Ada',
      middle_name: 'King',
      nickname: 'Countess',
      preferred_username: 'ada',
      profile: 'https://ada.example/about',
      picture: 'https://img.example/ada.png',
      website: 'https://ada.example',
      gender: 'female',
      birthdate: '1815-12-10',
      zoneinfo: 'Europe/London',
      locale: 'en-GB',
      updated_at: 1709294400,
      email: 'ada@example.com',
      email_verified: false,
      address: { formatted: '12 St James’s Square\nLondon', locality: 'London', postal_code: 'SW1Y 4JH', country: 'UK' },
      phone_number: '+442079460958',
      phone_number_verified: false,
    });
  });

  it('leaves out what the user has not set (the name falls back to the username)', () => {
    expect(standardClaims(bare, ALL)).toEqual({
      name: 'ada',
      preferred_username: 'ada',
      updated_at: 1709294400,
      email: 'ada@example.com',
      email_verified: false,
    });
    // An empty address, an empty string: no claim.
    expect(standardClaims({ ...bare, address: {}, nickname: '' }, ['address', 'nickname'])).toEqual({});
    // Verified means nothing without a number.
    expect(standardClaims({ ...bare, phoneNumberVerified: true }, SCOPE_CLAIMS.phone)).toEqual({});
    expect(standardClaims({ ...full, phoneNumberVerified: true }, SCOPE_CLAIMS.phone)).toEqual({ phone_number: '+442079460958', phone_number_verified: true });
  });

  it('gives only the names asked for, ignoring names that are not standard claims', () => {
    expect(standardClaims(full, ['locale', 'role', 'sub', 'toString', '__proto__'])).toEqual({ locale: 'en-GB' });
  });
});

describe('scopedUserClaims', () => {
  it('releases each scope’s claims: profile, email, address, phone', () => {
    expect(Object.keys(scopedUserClaims(full, ['openid']))).toEqual([]);
    expect(Object.keys(scopedUserClaims(full, ['address']))).toEqual(['address']);
    expect(Object.keys(scopedUserClaims(full, ['phone']))).toEqual(['phone_number', 'phone_number_verified']);
    expect(Object.keys(scopedUserClaims(full, ['email']))).toEqual(['email', 'email_verified']);
    expect(Object.keys(scopedUserClaims(full, ['profile'])).sort()).toEqual([...SCOPE_CLAIMS.profile].sort());
    expect(scopedUserClaims(bare, ['address', 'phone'])).toEqual({});
  });
});
