// The OIDC standard claims of the user's profile, over HTTP against the real
// api: set and cleared through PATCH /api/oauth/me/profile, released by the
// profile, email, address and phone scopes in UserInfo and the ID token with
// their types, none of the unset ones (no null, no ""); bad values refused
// with 400 invalid_request naming the field, never a 500; the phone number
// verified only by an administrator, and no longer once the user changes it.
import { updateUser } from '../../../lib/admin/user-changes.js';
import { SCOPE_CLAIMS } from '../../../lib/model/claims.js';
import { ConflictError } from '../../../lib/model/errors.js';
import { PROFILE_CLAIM_FIELDS, type ProfileClaim } from '../../../lib/model/profile-fields.js';
import { newUser, type FixtureUser } from '../../../tools/fixtures/users.js';
import { useTestApi, type Json } from '../../support/harness.js';
import { mintAccessToken } from '../../support/minted-token.js';
import { FLOW_PASSWORD, newTestRp, runCodeFlow } from '../../support/token-flow.js';
import { getUserinfo, jwtClaims } from '../../support/http.js';

const api = useTestApi();

const SCOPE = 'openid profile email address phone';
const OPTIONAL = [
  'family_name',
  'given_name',
  'middle_name',
  'nickname',
  'profile',
  'picture',
  'website',
  'gender',
  'birthdate',
  'zoneinfo',
  'locale',
  'address',
  'phone_number',
  'phone_number_verified',
];

/** Every field, as a client sends it. */
const EVERY_FIELD = {
  name: 'Ada Lovelace',
  picture: 'https://img.example/ada.png',
  given_name: 'Ada',
  family_name: 'Lovelace',
  middle_name: 'Augusta',
  nickname: 'Countess <Ada>',
  profile: 'https://ada.example/about',
  website: 'https://ada.example',
  gender: 'female',
  birthdate: '1815-12-10',
  zoneinfo: 'Europe/London',
  locale: 'en-gb',
  phone_number: '+44 (20) 7946-0958',
  address: {
    formatted: '12 St James’s Square\nLondon SW1Y 4JH',
    street_address: '12 St James’s Square',
    locality: 'London',
    region: 'Greater London',
    postal_code: 'SW1Y 4JH',
    country: 'United Kingdom',
  },
};

/** The claims of EVERY_FIELD, normalised (locale case, E.164), as Keyflow releases them. */
const EVERY_CLAIM = {
  ...EVERY_FIELD,
  locale: 'en-GB',
  phone_number: '+442079460958',
  phone_number_verified: false,
};

const patchProfile = async (token: string, body: unknown, contentType = 'application/json') => {
  const res = await fetch(`${api.issuer}/api/oauth/me/profile`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
};

const userinfo = async (accessToken: string): Promise<Json> => {
  const res = await getUserinfo(api.issuer, accessToken);
  expect(res.status).toBe(200);
  return res.json();
};

async function profileUser(prefix: string): Promise<FixtureUser & { token: string }> {
  const fixture = await newUser(api.deps, { prefix, password: FLOW_PASSWORD });
  return { ...fixture, token: await mintAccessToken(api, fixture.id, ['profile:write']) };
}

async function flow(u: FixtureUser, scope = SCOPE) {
  const rp = await newTestRp(api, { allowedScopes: ['openid', 'profile', 'email', 'address', 'phone'] });
  const { tokens } = await runCodeFlow(api, rp, scope, { user: { email: u.email, doc: u.user } });
  return { info: await userinfo(tokens.access_token), id: jwtClaims(tokens.id_token) };
}

const noEmptyValues = (claims: Json) =>
  expect(Object.entries(claims).filter(([, v]) => v === null || v === '' || (typeof v === 'object' && !Object.keys(v).length))).toEqual([]);

describe('the standard claims', () => {
  it('releases every field the user set, with its type, in UserInfo and the ID token', async () => {
    const u = await profileUser('claims-full');
    const patched = await patchProfile(u.token, EVERY_FIELD);
    expect(patched.status).toBe(200);
    // The answer: the profile, address and phone claims after the change.
    expect(patched.body).toEqual({ sub: u.id, preferred_username: u.user.username, updated_at: expect.any(Number), ...EVERY_CLAIM });

    const { info, id } = await flow(u);
    const expected = { ...EVERY_CLAIM, preferred_username: u.user.username, email: u.email, email_verified: true, updated_at: patched.body.updated_at };
    expect(info).toEqual({ sub: u.id, ...expected });
    expect(id).toMatchObject(expected);
    for (const claims of [info, id]) {
      expect(typeof claims.updated_at).toBe('number');
      expect(Number.isInteger(claims.updated_at)).toBe(true);
      expect(claims.address).toEqual(EVERY_FIELD.address);
      expect(claims.phone_number_verified).toBe(false);
      noEmptyValues(claims);
    }
    // updated_at: the seconds of the last change.
    const stored = await api.deps.store.users.findOne({ _id: u.id });
    expect(info.updated_at).toBe(Math.floor(stored!.updatedAt.getTime() / 1000));
  });

  it('releases none of the optional claims of a user who set none (no null, no empty string)', async () => {
    const u = await profileUser('claims-none');
    const { info, id } = await flow(u);
    expect(info).toEqual({
      sub: u.id,
      name: u.user.username,
      preferred_username: u.user.username,
      updated_at: expect.any(Number),
      email: u.email,
      email_verified: true,
    });
    for (const claims of [info, id]) {
      for (const claim of OPTIONAL) expect(claims).not.toHaveProperty(claim);
      noEmptyValues(claims);
    }
  });

  it('releases address and phone only with their scopes', async () => {
    const u = await profileUser('claims-scopes');
    expect((await patchProfile(u.token, EVERY_FIELD)).status).toBe(200);
    const { info, id } = await flow(u, 'openid profile email');
    for (const claims of [info, id]) for (const claim of [...SCOPE_CLAIMS.address, ...SCOPE_CLAIMS.phone]) expect(claims).not.toHaveProperty(claim);
    expect(info.given_name).toBe('Ada');
    const phoneOnly = await flow(u, 'openid phone');
    expect(phoneOnly.info).toEqual({ sub: u.id, phone_number: '+442079460958', phone_number_verified: false });
  });
});

describe('PATCH /api/oauth/me/profile', () => {
  const SETS: [string, unknown, unknown][] = [
    ['given_name', ' Grace ', 'Grace'],
    ['family_name', 'Hopper', 'Hopper'],
    ['middle_name', 'Brewster', 'Brewster'],
    ['nickname', 'Amazing Grace', 'Amazing Grace'],
    ['profile', 'https://grace.example/me', 'https://grace.example/me'],
    ['website', 'https://grace.example', 'https://grace.example'],
    ['picture', 'https://grace.example/me.png', 'https://grace.example/me.png'],
    ['gender', 'woman', 'woman'],
    ['birthdate', '0000-12-09', '0000-12-09'],
    ['zoneinfo', 'America/New_York', 'America/New_York'],
    ['locale', 'en-US', 'en-US'],
    ['phone_number', '+1 555 0100', '+15550100'],
    ['address', { locality: 'Arlington', country: 'USA' }, { locality: 'Arlington', country: 'USA' }],
  ];

  it.each(SETS)('sets %s, and clears it with null or ""', async (claim, value, released) => {
    const u = await profileUser(`patch-${claim}`);
    const updatedSince = async (t: number) => (await api.deps.store.users.findOne({ _id: u.id }))!.updatedAt.getTime() >= t;
    let t = Date.now();
    const set = await patchProfile(u.token, { [claim]: value });
    expect(set.status).toBe(200);
    expect(set.body[claim]).toEqual(released);
    expect(await updatedSince(t)).toBe(true);
    for (const empty of [null, '']) {
      expect((await patchProfile(u.token, { [claim]: value })).status).toBe(200);
      t = Date.now();
      const cleared = await patchProfile(u.token, { [claim]: empty });
      expect(cleared.status).toBe(200);
      expect(cleared.body).not.toHaveProperty(claim);
      noEmptyValues(cleared.body);
      expect(await updatedSince(t)).toBe(true);
      // Cleared: absent from the document, as on accounts that never set it (a cleared picture is null, as before).
      const doc = (await api.deps.store.users.findOne({ _id: u.id }))!;
      if (claim === 'picture') expect(doc.picture).toBeNull();
      else expect(doc).not.toHaveProperty(PROFILE_CLAIM_FIELDS[claim as ProfileClaim]);
    }
  });

  it('keeps what a change does not name, and replaces the address as a whole', async () => {
    const u = await profileUser('patch-keep');
    expect((await patchProfile(u.token, EVERY_FIELD)).status).toBe(200);
    const after = await patchProfile(u.token, { nickname: 'Ada', address: { locality: 'Ockham' } });
    expect(after.body).toMatchObject({ given_name: 'Ada', nickname: 'Ada', phone_number: '+442079460958', address: { locality: 'Ockham' } });
    expect(Object.keys(after.body.address)).toEqual(['locality']);
    expect((await patchProfile(u.token, { address: { locality: '', country: null } })).body).not.toHaveProperty('address');
  });

  const REFUSED: [string, unknown, RegExp][] = [
    ['a bad time zone', { zoneinfo: 'Mars/Olympus_Mons' }, /zoneinfo/],
    ['an offset for a time zone', { zoneinfo: '+01:00' }, /zoneinfo/],
    ['a bad locale', { locale: 'english please' }, /locale/],
    ['a locale with an underscore', { locale: 'en_US' }, /locale/],
    ['a date that does not exist', { birthdate: '1990-02-30' }, /birthdate/],
    ['a birthdate in another format', { birthdate: '17/05/1990' }, /birthdate/],
    ['year 0000 alone', { birthdate: '0000' }, /birthdate/],
    ['a non-https profile URL', { profile: 'http://grace.example' }, /profile/],
    ['a javascript: website', { website: 'javascript:alert(1)' }, /website/],
    ['a non-https picture', { picture: 'ftp://grace.example/me.png' }, /picture/],
    ['a number without country code', { phone_number: '555 0100' }, /phone_number/],
    ['a number with letters', { phone_number: '+1 555 CALL ME' }, /phone_number/],
    ['phone_number_verified (no one proves a number here)', { phone_number_verified: true }, /phone_number_verified/],
    ['an unknown field', { email: 'grace@example.com' }, /email/],
    ['an unknown address part', { address: { street: 'Main St' } }, /address.*street/],
    ['an address that is a string', { address: 'Main St, Arlington' }, /address/],
    ['a name that is a number', { given_name: 42 }, /given_name/],
    ['a gender that is an object', { gender: { value: 'x' } }, /gender/],
    ['a nickname that is an array', { nickname: ['a', 'b'] }, /nickname/],
    ['a phone number that is a number', { phone_number: 15550100 }, /phone_number/],
    ['a postal code that is a number', { address: { postal_code: 22201 } }, /address\.postal_code/],
    ['a locality on two lines', { address: { locality: 'Arling\nton' } }, /address\.locality/],
    ['a birthdate that is true', { birthdate: true }, /birthdate/],
    ['a too long family name', { family_name: 'x'.repeat(201) }, /family_name/],
    ['a too long formatted address', { address: { formatted: 'x'.repeat(501) } }, /address\.formatted/],
  ];

  it.each(REFUSED)('refuses %s: 400 invalid_request naming the field, nothing changed', async (_what, body, field) => {
    const u = await profileUser('patch-refused');
    const before = await api.deps.store.users.findOne({ _id: u.id });
    const res = await patchProfile(u.token, body);
    expect(res).toEqual({ status: 400, body: { error: 'invalid_request', error_description: expect.stringMatching(field) } });
    expect(await api.deps.store.users.findOne({ _id: u.id })).toEqual(before);
  });

  it('refuses a body that is not a JSON object, without a 500', async () => {
    const u = await profileUser('patch-shape');
    for (const body of ['[]', '"Ada"', '{"given_name": ', 'null']) {
      const res = await patchProfile(u.token, body);
      expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status: 400, error: 'invalid_request' });
    }
  });
});

describe('phone_number_verified', () => {
  async function adminToken() {
    const admin = await newUser(api.deps, { prefix: 'phone-admin', password: FLOW_PASSWORD, admin: true });
    return mintAccessToken(api, admin.id, ['admin:users:read', 'admin:users:write']);
  }
  const adminPatch = async (token: string, userId: string, body: unknown) => {
    const res = await fetch(`${api.issuer}/api/oauth/me/admin/users/${userId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  it('is set only by an administrator, and a new number is no longer verified', async () => {
    const u = await profileUser('phone-verified');
    const admin = await adminToken();
    // No number yet: nothing to verify.
    const none = await adminPatch(admin, u.id, { phone_number_verified: true });
    expect(none).toEqual({ status: 400, body: { error: 'invalid_request', error_description: expect.stringMatching(/phone_number_verified/) } });
    expect(await adminPatch(admin, u.id, { phone_number_verified: 'yes' })).toMatchObject({ status: 400 });

    expect((await patchProfile(u.token, { phone_number: '+1 555 0100' })).body.phone_number_verified).toBe(false);
    const marked = await adminPatch(admin, u.id, { phone_number_verified: true });
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({ phone_number: '+15550100', phone_number_verified: true });
    expect((await flow(u, 'openid phone')).info).toEqual({ sub: u.id, phone_number: '+15550100', phone_number_verified: true });

    // The user changes the number: the mark goes with the old one.
    expect((await patchProfile(u.token, { phone_number: '+1 555 0199' })).body).toMatchObject({ phone_number: '+15550199', phone_number_verified: false });
    expect((await api.deps.store.users.findOne({ _id: u.id }))!.phoneNumberVerified).toBeUndefined();
    expect((await adminPatch(admin, u.id, { phone_number_verified: true })).status).toBe(200);
    // Cleared: neither the number nor the mark is released or kept.
    const cleared = await patchProfile(u.token, { phone_number: null });
    expect(cleared.body).not.toHaveProperty('phone_number');
    expect(cleared.body).not.toHaveProperty('phone_number_verified');
    const doc = (await api.deps.store.users.findOne({ _id: u.id }))!;
    expect([doc.phoneNumber, doc.phoneNumberVerified]).toEqual([undefined, undefined]);
  });

  it('is not set on a number the administrator did not see (the user changed it meanwhile)', async () => {
    const u = await profileUser('phone-race');
    expect((await patchProfile(u.token, { phone_number: '+1 555 0100' })).status).toBe(200);
    const seen = (await api.deps.store.users.findOne({ _id: u.id }))!;
    expect((await patchProfile(u.token, { phone_number: '+1 555 0199' })).status).toBe(200);
    const flows = { client: api.deps.temporal.client, taskQueue: api.deps.config.temporal.taskQueue };
    const deps = { store: api.deps.store, events: api.deps.events, audit: api.deps.audit, flows, endSessions: () => Promise.resolve(0) };
    await expect(updateUser(deps, seen, { phone_number_verified: true }, { type: 'operator' })).rejects.toThrow(ConflictError);
    const doc = (await api.deps.store.users.findOne({ _id: u.id }))!;
    expect([doc.phoneNumber, doc.phoneNumberVerified]).toEqual(['+15550199', undefined]);
  });
});
