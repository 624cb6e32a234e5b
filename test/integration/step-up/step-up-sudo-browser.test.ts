// Sudo mode on the step-up confirmation page in headless Chromium: a passkey
// confirmation with "Don't ask again for N minutes" ticked (/assets/step-up.js
// adds sudo=yes to the passkey answer), then a second challenge of the same
// client confirmed with the checkbox alone ("Confirm" enabled only once it is
// ticked, no factor inputs): verify answers method `sudo`.
//
// `sudo_mode_ttl_minutes` is a global site setting: this file's api uses a
// database of its own (the workflows write their projections into the api's).
import { setSiteSetting } from '../../../lib/store/settings.js';
import { createUser } from '../../../lib/store/users.js';
import { addPasskey, addVirtualAuthenticator, signInAtAccount, useRpCallback, useBrowser } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { newStepUpRp } from '../../support/step-up-rp.js';
import { uniqueEmail } from '../../../tools/fixtures/users.js';
import { testDatabase } from '../../support/database.js';

const PASSWORD = 'step-up sudo browser password';
const TIMEOUT = 60_000;
const ACTION = 'Remove the member "bob" <admin>';

const browser = useBrowser();
const rp = useRpCallback();

const api = useLocalhostApi(testDatabase('stepup_sudo_browser').env);

const newPage = browser.newPage;

it(
  'opts in on a passkey confirmation, then confirms the next challenge of the same client with the checkbox alone (method sudo)',
  async () => {
    const email = uniqueEmail('stepup-sudo-browser');
    const user = await createUser(api.deps.store, { email, password: PASSWORD, name: 'Sudo Browser' });
    const { id: clientId, challenge, verify } = await newStepUpRp(api, rp, ACTION, { name: 'Sudo browser RP' });

    const page = await newPage();
    await addVirtualAuthenticator(page);
    await signInAtAccount(page, api.issuer, email, PASSWORD);
    await addPasskey(page, api.issuer, 'Laptop');

    // 1. A passkey confirmation with the opt-in ticked.
    const first = await challenge('s1');
    await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 10);
    await page.goto(first);
    await page.getByRole('heading', { name: 'Confirm an action' }).waitFor();
    await page.getByLabel(`I confirm: ${ACTION}`).check();
    await page.getByLabel("Don't ask again for 10 minutes").check();
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    const confirmed = await rp.nextCallback();
    expect(confirmed.get('state')).toBe('s1');
    expect((await verify(confirmed.get('code')!)).method).toBe('passkey');

    // 2. Within the window: the checkbox alone, no factor inputs.
    const second = await challenge('s2');
    await setSiteSetting(api.deps.store, 'sudo_mode_ttl_minutes', 10);
    await page.goto(second);
    await page.getByRole('heading', { name: 'Confirm an action' }).waitFor();
    await expect(page.getByLabel('Authentication code').count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Use a passkey' }).count()).resolves.toBe(0);
    const confirm = page.getByRole('button', { name: 'Confirm' });
    await expect(confirm.isDisabled()).resolves.toBe(true);
    await page.getByLabel(`I confirm: ${ACTION}`).check();
    await expect(confirm.isEnabled()).resolves.toBe(true);
    await confirm.click();
    const bySudo = await rp.nextCallback();
    expect(bySudo.get('state')).toBe('s2');
    expect(await verify(bySudo.get('code')!)).toEqual({
      user_id: user._id,
      client_id: clientId,
      verified_at: expect.any(Number),
      action: ACTION,
      nonce: '',
      method: 'sudo',
    });
  },
  TIMEOUT,
);
