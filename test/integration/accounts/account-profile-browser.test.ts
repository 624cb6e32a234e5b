// The profile form of /account in headless Chromium: the user fills in some
// standard claims and the address, saves, sees them again (normalised); a bad
// value is refused on the page naming the field, what was typed kept; emptied
// fields are cleared from the account.
import { createUser } from '../../../lib/store/users.js';
import { useBrowser } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';

const PASSWORD = 'account profile browser password';

const browser = useBrowser();

const api = useLocalhostApi();

describe('the profile form in a browser', () => {
  it('sets and clears standard claims and the address, and refuses a bad value naming the field', async () => {
    const email = uniqueEmail('profile-browser');
    const user = await createUser(api.deps.store, { email, password: PASSWORD });
    const page = await browser.signedIn(api.issuer, email, PASSWORD);
    const save = () => page.getByRole('button', { name: 'Save' }).click();
    const stored = async () => (await api.deps.store.users.findOne({ _id: user._id }))!;

    await page.getByLabel('Given name').fill('Grace');
    await page.getByLabel('Family name').fill('Hopper');
    await page.getByLabel('Time zone').fill('America/New_York');
    await page.getByLabel('Language').fill('EN-us');
    await page.getByLabel('Phone number').fill('+1 (555) 010-0100');
    await page.getByLabel('Full address, as on an envelope').fill('1 Navy Way\nArlington, VA 22201');
    await page.getByLabel('City').fill('Arlington');
    await page.getByLabel('Postal code').fill('22201');
    await save();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await page.getByLabel('Language').inputValue()).toBe('en-US');
    expect(await page.getByLabel('Phone number').inputValue()).toBe('+15550100100');
    expect(await page.getByLabel('Full address, as on an envelope').inputValue()).toBe('1 Navy Way\nArlington, VA 22201');
    expect(await stored()).toMatchObject({
      givenName: 'Grace',
      familyName: 'Hopper',
      zoneinfo: 'America/New_York',
      locale: 'en-US',
      phoneNumber: '+15550100100',
      address: { formatted: '1 Navy Way\nArlington, VA 22201', locality: 'Arlington', postalCode: '22201' },
    });
    await page.getByText('Not verified: Keyflow sends no text messages.').waitFor();

    // A date that does not exist: refused on the page, in the form's words; what was typed stays.
    await page.getByLabel('Birthdate').fill('1906-02-30');
    await page.getByLabel('Nickname').fill('Amazing <Grace>');
    await save();
    await page.getByRole('alert').filter({ hasText: 'Birthdate: must be a date' }).waitFor();
    expect(await page.getByLabel('Nickname').inputValue()).toBe('Amazing <Grace>');
    expect((await stored()).nickname).toBeUndefined();

    // Emptied fields are cleared; the rest stays.
    await page.getByLabel('Birthdate').fill('1906-12-09');
    await page.getByLabel('Family name').fill('');
    await page.getByLabel('Phone number').fill('');
    for (const label of ['Full address, as on an envelope', 'City', 'Postal code']) await page.getByLabel(label).fill('');
    await save();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const after = await stored();
    expect(after).toMatchObject({ givenName: 'Grace', nickname: 'Amazing <Grace>', birthdate: '1906-12-09', zoneinfo: 'America/New_York' });
    for (const field of ['familyName', 'phoneNumber', 'address']) expect(after).not.toHaveProperty(field);
    expect(await page.getByLabel('Nickname').inputValue()).toBe('Amazing <Grace>');
    expect(await page.getByLabel('City').inputValue()).toBe('');
  });
});
