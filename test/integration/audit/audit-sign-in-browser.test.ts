// The audit trail of what needs a browser, in headless Chromium: passkeys (a
// virtual authenticator) added, used to sign in, removed, and refused once
// removed; and "Sign in with …" against a real upstream (oidc-provider), whose
// first sign-in makes the account. Each record with its actor, subject, data
// and request, and never the email.
import type { Filter } from 'mongodb';
import type { AuditEntry } from '../../../lib/model/audit-events.js';
import { findUserByEmail } from '../../../lib/store/users.js';
import { auditRecords, awaitAuditRecord } from '../../support/audit.js';
import { addPasskey, addVirtualAuthenticator, signInAtAccount, useBrowser, confirmAction } from '../../support/browser.js';
import { useLocalhostApi } from '../../support/harness.js';
import { newSource, UPSTREAM_CLIENT_ID, UPSTREAM_CLIENT_SECRET } from '../../support/oauth-source.js';
import { signInUpstream, startUpstreamIdp, type UpstreamIdp } from '../../support/upstream-idp.js';
import { testDatabase } from '../../support/database.js';
import { newUser, uniqueEmail } from '../../../tools/fixtures/users.js';
import { expectNoSecret } from '../../support/secrets.js';

const PASSWORD = 'audit browser password';
const SLUG = `audit-up-${Date.now().toString(36)}`;

const browser = useBrowser();
const api = useLocalhostApi(testDatabase('audit_sign_in_browser').env);
let upstream: UpstreamIdp;
beforeAll(async () => {
  upstream = await startUpstreamIdp([
    { clientId: UPSTREAM_CLIENT_ID, clientSecret: UPSTREAM_CLIENT_SECRET, redirectUris: [`${api.issuer}/login/source/${SLUG}/callback`] },
  ]);
});
afterAll(async () => {
  await upstream?.close();
});
afterEach(() => browser.closeAll());

/** The newest record matching `filter`: as expected, from a request (address and id), without any of `secrets`. */
async function expectRecord(filter: Filter<AuditEntry>, expected: Partial<AuditEntry>, secrets: string[]): Promise<AuditEntry> {
  const record = await awaitAuditRecord(api.deps.store, filter);
  expect(record).toMatchObject({ outcome: 'success', ...expected });
  if (expected.data) expect(Object.keys(record.data).sort()).toEqual(Object.keys(expected.data).sort());
  expect(record).toMatchObject({ ip: expect.any(String), requestId: expect.any(String) });
  const text = JSON.stringify(record);
  for (const secret of secrets) expectNoSecret(text, secret);
  return record;
}

const userOf = (id: string) => ({ type: 'user', userId: id }) as const;

it('records a passkey added, a sign-in with it, its removal, and the refused sign-in with it afterwards', async () => {
  const { id, email } = await newUser(api.deps, { prefix: 'audit-passkey', password: PASSWORD });
  const page = await browser.newPage();
  await addVirtualAuthenticator(page);
  await signInAtAccount(page, api.issuer, email, PASSWORD);
  await addPasskey(page, api.issuer, 'Audit key');
  const credentialId = (await api.deps.store.passkeys.findOne({ userId: id }))!._id;
  const secrets = [email, PASSWORD];
  await expectRecord(
    { event: 'passkey.added', 'subject.userId': id },
    { actor: userOf(id), subject: { userId: id }, data: { credential_id: credentialId } },
    secrets,
  );

  const signOut = async () => {
    await page.goto(`${api.issuer}/account`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${api.issuer}/logout`);
  };
  await signOut();
  await expectRecord({ event: 'logout', 'subject.userId': id }, { actor: userOf(id), subject: { userId: id }, data: {} }, secrets);

  await page.goto(`${api.issuer}/login`);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.waitForURL(`${api.issuer}/account`);
  await expectRecord(
    { event: 'login', 'subject.userId': id, 'data.method': 'passkey' },
    { actor: userOf(id), subject: { userId: id }, data: { method: 'passkey', amr: ['webauthn', 'mfa'], acr: 'mfa' } },
    secrets,
  );

  await page.goto(`${api.issuer}/account/security`);
  await confirmAction(page.getByRole('listitem').filter({ hasText: 'Audit key' }), 'Remove', 'Yes, remove the passkey');
  await page.waitForURL(`${api.issuer}/account/security`);
  await expectRecord(
    { event: 'passkey.removed', 'subject.userId': id },
    { actor: userOf(id), subject: { userId: id }, data: { credential_id: credentialId } },
    secrets,
  );

  // The authenticator still holds the credential Keyflow forgot: refused, and no account named.
  await signOut();
  const before = await auditRecords(api.deps.store, { event: 'login.failed', 'data.reason': 'passkey_failed' });
  await page.goto(`${api.issuer}/login`);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByText('That passkey could not be verified.').waitFor();
  const record = await expectRecord(
    { event: 'login.failed', 'data.reason': 'passkey_failed', id: { $nin: before.map((r) => r.id) } },
    { outcome: 'failure', actor: { type: 'anonymous' }, subject: {}, data: { method: 'passkey', reason: 'passkey_failed' } },
    secrets,
  );
  expect(record.data.account).toBeUndefined();
});

it('records the account a first upstream sign-in makes (via social) and the sign-in itself', async () => {
  const source = await newSource(api, upstream.issuer, { allowSignUp: true, slug: SLUG });
  const sub = `audit-${Date.now()}`;
  const email = uniqueEmail('audit-social');
  upstream.accounts.set(sub, { email, email_verified: true, name: 'Audit Social' });
  const page = await browser.newPage();
  await signInUpstream(page, api.issuer, source.name, sub);
  await page.waitForURL(`${api.issuer}/account`);
  const user = (await findUserByEmail(api.deps.store, email))!;
  await expectRecord(
    { event: 'user.created', 'subject.userId': user._id },
    { actor: userOf(user._id), subject: { userId: user._id }, data: { admin: false, via: 'social' } },
    [email, sub],
  );
  await expectRecord({ event: 'login', 'subject.userId': user._id }, { actor: userOf(user._id), data: { method: 'social', amr: ['fed'], acr: 'pwd' } }, [
    email,
    sub,
  ]);
});
