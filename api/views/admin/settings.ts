// /admin/settings: the site settings as a form, one field per setting. Secret
// settings are write-only: a field that sets or replaces the value (empty
// keeps it) and a checkbox that clears it; the page shows only whether one is
// set, never the value.
import type { Response } from 'express';
import { CAPTCHA_PROVIDERS, REGISTRATION_MODES, SITE_SETTINGS, type SiteSettingKey } from '../../../lib/model/site-settings.js';
import { html, type SafeHtml } from '../../html/html.js';
import { csrfField } from '../../html/layout.js';
import { checked, option } from '../teams.js';
import { adminPage } from './layout.js';
import { ADMIN_PAGES } from '../../paths.js';

export const SETTING_KEYS = Object.keys(SITE_SETTINGS) as SiteSettingKey[];

/** Each setting's field: a choice among values, a yes/no, a number or text. */
const CHOICES: Partial<Record<SiteSettingKey, readonly string[]>> = { captcha_provider: CAPTCHA_PROVIDERS, registration: REGISTRATION_MODES };
const LABELS: Record<SiteSettingKey, string> = {
  sudo_mode_ttl_minutes: 'Sudo mode window in minutes (0 turns sudo mode off)',
  require_captcha_for_2fa: 'Require a captcha to confirm a second factor at step-up',
  captcha_provider: 'Captcha provider',
  captcha_site_key: 'Captcha site key',
  captcha_secret_key: 'Captcha secret key',
  captcha_verify_url: "Captcha verify URL (empty: the provider's own)",
  pow_difficulty: 'Proof-of-work difficulty (leading zero bits, 8 to 32)',
  registration: 'Registration at /signup (open: anyone; invite: holders of an invitation; closed: nobody)',
};

/** The form's values as text: the settings (a secret one: "********" when set, else ''), or what was sent when refused. */
export type SettingsDraft = Record<SiteSettingKey, string>;

/** A setting's value as a form field holds it (settings are strings, numbers or booleans). */
const asText = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');

export const settingsDraftOf = (settings: Record<string, unknown>): SettingsDraft =>
  Object.fromEntries(SETTING_KEYS.map((k) => [k, asText(settings[k])])) as SettingsDraft;

function field(key: SiteSettingKey, value: string, now: string): SafeHtml {
  const id = `setting-${key}`;
  const current = html`<span class="muted">now <code data-setting="${key}">${now === '' ? '(empty)' : now}</code></span>`;
  if (SITE_SETTINGS[key].secret)
    return html`<label for="${id}">${LABELS[key]}: new value (empty keeps the current one; never shown)</label> ${current}
<input id="${id}" name="${key}" type="password" maxlength="500" autocomplete="off">
${now === '' ? '' : html`<label><input type="checkbox" name="clear_${key}" value="1"> Clear the ${LABELS[key].toLowerCase()}</label>`}`;
  if (typeof SITE_SETTINGS[key].default === 'boolean')
    return html`<label><input id="${id}" type="checkbox" name="${key}" value="true"${checked(value === 'true')}> ${LABELS[key]}</label> ${current}`;
  const choices = CHOICES[key];
  if (choices)
    return html`<label for="${id}">${LABELS[key]}</label> ${current}
<select id="${id}" name="${key}">${choices.map((c) => option(c, c, c === value))}</select>`;
  const numeric = typeof SITE_SETTINGS[key].default === 'number';
  return html`<label for="${id}">${LABELS[key]}</label> ${current}
<input id="${id}" name="${key}" type="${numeric ? 'number' : 'text'}" maxlength="500" value="${value}">`;
}

export function adminSettingsPage(res: Response, csrf: string, now: Record<string, unknown>, draft: SettingsDraft, notice?: SafeHtml, status = 200): void {
  const shown = settingsDraftOf(now);
  adminPage(res, {
    title: 'Settings',
    area: ADMIN_PAGES.settings,
    notice,
    status,
    body: html`<p class="muted">The same settings as <code>keyflow config set KEY VALUE</code> and the admin config API. Only the settings you change are written; a bad value is refused and nothing is written.</p>
<form method="post" action="${ADMIN_PAGES.settings}" class="settings">
${csrfField(csrf)}
${SETTING_KEYS.map((k) => html`<p>${field(k, draft[k], shown[k])}</p>`)}
<button type="submit">Save settings</button>
</form>`,
  });
}
