// The account pages: the profile, the security page (authenticator app,
// passkeys, backup codes) and the backup codes shown once.
import type { Response } from 'express';
import type { SessionDoc } from '../../lib/model/sessions.js';
import { ADDRESS_MAX_LENGTH, ADDRESS_PARTS, PROFILE_MAX_LENGTH, timeZoneNames, type AddressPart } from '../../lib/model/profile-fields.js';
import type { UserDoc } from '../../lib/model/users.js';
import type { PasskeyDoc } from '../../lib/model/passkeys.js';
import { hasUsablePassword } from '../../lib/store/passwordless-users.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { confirmedAction } from '../html/confirm.js';
import { accountShell } from './account-nav.js';
import { PAGES } from '../paths.js';

export type Signed = { session: SessionDoc; user: UserDoc };

/** What the security page shows beyond the user: their passkeys and, during enrollment, the TOTP secret and its QR code. */
export interface SecurityFactors {
  passkeys: PasskeyDoc[];
  pendingTotp: { secret: string; qr: string } | null;
}

interface FormField {
  label: string;
  max: number;
  type?: 'url' | 'tel' | 'textarea';
  placeholder?: string;
  list?: string;
}

const URL_FIELD = { type: 'url', max: PROFILE_MAX_LENGTH.url, placeholder: 'https://…' } as const;

/** The profile form's fields, by claim name (the address parts as `address_<part>`), in the form's order. */
const ABOUT_FIELDS: Record<string, FormField> = {
  name: { label: 'Name', max: 200 },
  given_name: { label: 'Given name', max: PROFILE_MAX_LENGTH.given_name },
  middle_name: { label: 'Middle name', max: PROFILE_MAX_LENGTH.middle_name },
  family_name: { label: 'Family name', max: PROFILE_MAX_LENGTH.family_name },
  nickname: { label: 'Nickname', max: PROFILE_MAX_LENGTH.nickname },
  picture: { label: 'Picture URL', ...URL_FIELD },
  profile: { label: 'Profile page URL', ...URL_FIELD },
  website: { label: 'Website', ...URL_FIELD },
  gender: { label: 'Gender', max: PROFILE_MAX_LENGTH.gender },
  birthdate: { label: 'Birthdate', max: PROFILE_MAX_LENGTH.birthdate, placeholder: 'YYYY-MM-DD, YYYY or 0000-MM-DD' },
  zoneinfo: { label: 'Time zone', max: PROFILE_MAX_LENGTH.zoneinfo, placeholder: 'Europe/Paris', list: 'time-zones' },
  locale: { label: 'Language', max: PROFILE_MAX_LENGTH.locale, placeholder: 'en-US' },
};
const PHONE_FIELD: FormField = { label: 'Phone number', type: 'tel', max: PROFILE_MAX_LENGTH.phone_number, placeholder: '+1 555 0100' };
const ADDRESS_LABELS: Record<AddressPart, string> = {
  formatted: 'Full address, as on an envelope',
  street_address: 'Street address',
  locality: 'City',
  region: 'Region or state',
  postal_code: 'Postal code',
  country: 'Country',
};
const ADDRESS_FIELDS: Record<string, FormField> = Object.fromEntries(
  (Object.keys(ADDRESS_PARTS) as AddressPart[]).map((part) => [
    `address_${part}`,
    { label: ADDRESS_LABELS[part], max: ADDRESS_MAX_LENGTH[part], ...(part === 'formatted' || part === 'street_address' ? { type: 'textarea' } : {}) },
  ]),
);

/** The profile form's field names: what the form posts. */
export const PROFILE_FORM_FIELDS = [...Object.keys(ABOUT_FIELDS), 'phone_number', ...Object.keys(ADDRESS_FIELDS)];

/** What the profile form shows: the user's values, or what they sent when it was refused. */
export type ProfileFormValues = Partial<Record<string, string>>;

/** The form's values of a stored profile. */
export function profileFormValues(user: UserDoc): ProfileFormValues {
  const values: ProfileFormValues = {
    name: user.name,
    picture: user.picture ?? '',
    given_name: user.givenName,
    middle_name: user.middleName,
    family_name: user.familyName,
    nickname: user.nickname,
    profile: user.profile,
    website: user.website,
    gender: user.gender,
    birthdate: user.birthdate,
    zoneinfo: user.zoneinfo,
    locale: user.locale,
    phone_number: user.phoneNumber,
  };
  for (const part of Object.keys(ADDRESS_PARTS) as AddressPart[]) values[`address_${part}`] = user.address?.[ADDRESS_PARTS[part]];
  return values;
}

/** A refused field in the words of the form: the label of the claim (`birthdate`) or address part (`address.postal_code`). */
export function profileFieldLabel(path: readonly PropertyKey[]): string {
  const name = path.map(String).join('_');
  return (ABOUT_FIELDS[name] ?? ADDRESS_FIELDS[name] ?? (name === 'phone_number' ? PHONE_FIELD : undefined))?.label ?? (name || 'The form');
}

function formField(name: string, f: FormField, value: string | undefined): SafeHtml {
  const label = html`<label for="${name}">${f.label}</label>`;
  if (f.type === 'textarea')
    return html`<div class="field wide">${label}<textarea id="${name}" name="${name}" rows="3" maxlength="${f.max}">${value ?? ''}</textarea></div>`;
  return html`<div class="field">${label}<input id="${name}" name="${name}" type="${f.type ?? 'text'}" maxlength="${f.max}"${f.placeholder ? html` placeholder="${f.placeholder}"` : ''}${
    f.list ? html` list="${f.list}"` : ''
  } value="${value ?? ''}"></div>`;
}

const fields = (set: Record<string, FormField>, values: ProfileFormValues) => Object.entries(set).map(([name, f]) => formField(name, f, values[name]));

/** The phone number's standing: only an administrator marks it verified, and a new number loses the mark. */
const phoneNote = (user: UserDoc) =>
  user.phoneNumber && user.phoneNumberVerified
    ? html`<p class="muted">Verified by an administrator. Changing the number removes the mark.</p>`
    : html`<p class="muted">Not verified: Keyflow sends no text messages. An administrator can mark your number verified.</p>`;

export function accountPage(res: Response, signed: Signed, notice?: SafeHtml, status = 200, values = profileFormValues(signed.user)): void {
  const { session, user } = signed;
  sendPage(res, {
    title: 'Your account',
    status,
    shell: accountShell(signed, PAGES.account),
    body: html`<h1>Your account</h1>
${notice ?? ''}
<p>${user.email} <span class="muted">(${user.username})</span></p>
<form method="post" action="${PAGES.profile}">
${csrfField(session.csrf)}
<p class="muted">Apps see these only when you allow them (the scopes profile, address and phone). Leave a field empty to clear it.</p>
<div class="fields">${fields(ABOUT_FIELDS, values)}</div>
<datalist id="time-zones">${timeZoneNames().map((zone) => html`<option value="${zone}">`)}</datalist>
${formField('phone_number', PHONE_FIELD, values.phone_number)}
${phoneNote(user)}
<fieldset class="fields"><legend>Postal address</legend>
${fields(ADDRESS_FIELDS, values)}
</fieldset>
<button type="submit">Save</button>
</form>
`,
  });
}

/**
 * Backup codes stand in for a second factor: without one (no authenticator
 * app, no passkey) they would let nobody in who could not already, so the page
 * offers them only with one and says so otherwise.
 */
function backupCodesSection({ session, user }: Signed, passkeys: number): SafeHtml {
  if (!user.totp && passkeys === 0)
    return html`<p class="muted">Backup codes stand in for your authenticator app or passkey when you cannot use it. Set up one of them first.</p>`;
  return html`<p>${user.backupCodes.length} unused backup codes.</p>
${confirmedAction({
  csrf: session.csrf,
  action: PAGES.backupCodes,
  label: 'Generate new backup codes',
  question: 'Your current backup codes stop working; the new ones are shown once.',
  confirm: 'Yes, generate new codes',
})}`;
}

export function securityPage(res: Response, signed: Signed, factors: SecurityFactors, notice?: SafeHtml, status = 200): void {
  const { session, user } = signed;
  const { passkeys, pendingTotp } = factors;
  let totp: SafeHtml;
  if (user.totp) {
    totp = html`<p>Authenticator app: <strong>on</strong></p>
${confirmedAction({
  csrf: session.csrf,
  action: PAGES.totpRemove,
  label: 'Remove authenticator app',
  question: 'Sign-in no longer asks for its codes.',
  confirm: 'Yes, remove it',
})}`;
  } else if (pendingTotp) {
    const { secret, qr } = pendingTotp;
    totp = html`<p>Scan this QR code with your authenticator app, or type the secret key.</p>
<img class="qr" src="${qr}" alt="QR code for your authenticator app">
<p><span id="secret-label">Secret key</span>: <code class="secret" aria-labelledby="secret-label">${secret}</code></p>
<form method="post" action="${PAGES.totpConfirm}">
${csrfField(session.csrf)}
<label for="totp-code">Authentication code</label>
<input id="totp-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required maxlength="6">
<button type="submit">Confirm</button>
</form>`;
  } else {
    totp = html`<p>Authenticator app: off</p>
<form method="post" action="${PAGES.totpSetup}">${csrfField(session.csrf)}<button type="submit">Set up authenticator app</button></form>`;
  }
  sendPage(res, {
    title: 'Security',
    shell: accountShell(signed, PAGES.security),
    status,
    scripts: ['simplewebauthn-browser.js', 'webauthn.js'],
    body: html`<h1>Security</h1>
${notice ?? ''}
<section><h2>Password</h2><p><a href="${PAGES.password}">${hasUsablePassword(user) ? 'Change your password' : 'Set a password'}</a></p></section>
<section><h2>Authenticator app</h2>${totp}</section>
<section><h2>Passkeys</h2>
<ul>${passkeys.map(
      (p) => html`<li>${p.name} <span class="muted">added ${p.createdAt.toISOString().slice(0, 10)}</span>
${confirmedAction({
  csrf: session.csrf,
  action: `${PAGES.passkeys}/${p._id}/delete`,
  label: 'Remove',
  question: html`The passkey <strong>${p.name}</strong> no longer signs you in.`,
  confirm: 'Yes, remove the passkey',
})}</li>`,
    )}</ul>
<label for="passkey-name">Passkey name</label>
<input id="passkey-name" type="text" maxlength="100" value="Passkey">
<button type="button" data-webauthn="register" data-csrf="${session.csrf}" data-options="${PAGES.passkeyOptions}" data-verify="${PAGES.passkeys}" data-name-input="passkey-name">Add a passkey</button>
<p class="error" role="alert" data-webauthn-error hidden></p>
</section>
<section><h2>Backup codes</h2>
${backupCodesSection(signed, passkeys.length)}
</section>`,
  });
}

export function backupCodesPage(res: Response, codes: string[], title = 'Your backup codes'): void {
  sendPage(res, {
    title,
    body: html`<h1>${title}</h1>
<p>Save these backup codes somewhere safe. Each works once, in place of an authentication code. They are shown only now.</p>
<ol class="codes" aria-label="Backup codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ol>
<p><a href="${PAGES.security}">Done</a></p>`,
  });
}
