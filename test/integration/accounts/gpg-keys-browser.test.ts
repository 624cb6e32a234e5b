// The GPG keys page in headless Chromium: reached from the account page, a
// key pasted into the textarea is listed with its fingerprint, a revoked one
// is refused on the page (the pasted text kept), and Delete removes the key.
import { generateKey, readKey, revokeKey } from 'openpgp';
import { createUser } from '../../../lib/store/users.js';
import { useBrowser, confirmAction } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';

const PASSWORD = 'gpg keys browser password';

const browser = useBrowser();

const api = useLocalhostApi();

describe('the GPG keys page in a browser', () => {
  it('adds a key, refuses a revoked one in words, and deletes the key', async () => {
    const email = uniqueEmail('gpg-browser');
    await createUser(api.deps.store, { email, password: PASSWORD });
    const good = await generateKey({ type: 'curve25519', userIDs: [{ name: 'Browser Key', email: 'bk@example.com' }] });
    const toRevoke = await generateKey({ type: 'curve25519', userIDs: [{ name: 'Gone' }], format: 'object' });
    const revoked = (await revokeKey({ key: toRevoke.privateKey, format: 'armored' })).publicKey;
    const fingerprint = (await readKey({ armoredKey: good.publicKey })).getFingerprint().toUpperCase();

    const page = await browser.signedIn(api.issuer, email, PASSWORD);
    await page.getByRole('navigation', { name: 'Your account' }).getByRole('link', { name: 'Keys and domains' }).click();
    await page.getByRole('heading', { name: 'GPG keys', level: 1 }).waitFor();
    await page.getByText('No GPG keys yet.').waitFor();

    await page.getByLabel(/Public key/).fill(good.publicKey);
    await page.getByRole('button', { name: 'Add key' }).click();
    await page.waitForURL(`${api.issuer}/account/gpg-keys`);
    const item = page.getByRole('listitem').filter({ hasText: 'Browser Key <bk@example.com>' });
    expect(await item.count()).toBe(1);
    expect((await item.locator('code').innerText()).replaceAll(' ', '')).toBe(fingerprint);

    await page.getByLabel(/Public key/).fill(revoked);
    await page.getByRole('button', { name: 'Add key' }).click();
    await page.getByRole('alert').filter({ hasText: 'this key is revoked' }).waitFor();
    expect((await page.getByLabel(/Public key/).inputValue()).trim()).toBe(revoked.trim());
    expect(await page.locator('main li').count()).toBe(1);

    await confirmAction(item, 'Delete', 'Yes, delete the key');
    await page.getByText('No GPG keys yet.').waitFor();
    expect(await api.deps.store.gpgKeys.countDocuments({ fingerprint })).toBe(0);
  });
});
