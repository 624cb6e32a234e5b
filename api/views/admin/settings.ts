// /admin/settings: the site settings as they are now, secret ones masked.
import type { Response } from 'express';
import { html } from '../../html/html.js';
import { adminPage } from './layout.js';

export const ADMIN_SETTINGS = '/admin/settings';

const shown = (v: unknown) => (typeof v === 'string' ? (v === '' ? '(empty)' : v) : JSON.stringify(v));

export function adminSettingsPage(res: Response, settings: Record<string, unknown>): void {
  adminPage(res, {
    title: 'Settings',
    area: ADMIN_SETTINGS,
    body: html`<p class="muted">Read only here for now: change a setting with <code>keyflow config set KEY VALUE</code>. Secret values are never shown.</p>
<dl class="settings">${Object.entries(settings).map(([k, v]) => html`<dt><code>${k}</code></dt><dd data-setting="${k}">${shown(v)}</dd>`)}</dl>`,
  });
}
