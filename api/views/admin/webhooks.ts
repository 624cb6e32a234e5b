// /admin/webhooks: the site's admin webhooks, how their latest deliveries
// went, and the forms that create, change, test and delete them. The signing
// secret of a webhook just created is on the page answering the form only
// (never cached; it is stored sealed and cannot be shown again).
import type { Response } from 'express';
import { ADMIN_EVENTS, WILDCARD } from '../../../lib/model/webhook-events.js';
import type { WebhookDeliveryDoc } from '../../../lib/model/webhook-delivery.js';
import type { WebhookDoc } from '../../../lib/model/webhooks.js';
import { type TestOutcome, urlHost } from '../../../lib/webhooks/webhook-changes.js';
import { html, type SafeHtml } from '../../html/html.js';
import { csrfField } from '../../html/layout.js';
import { checked } from '../teams.js';
import { adminPage } from './layout.js';
import { ADMIN_PAGES } from '../../paths.js';

export const adminWebhookPath = (id: string) => `${ADMIN_PAGES.webhooks}/${encodeURIComponent(id)}`;

export interface AdminWebhookRow {
  webhook: WebhookDoc;
  deliveries: WebhookDeliveryDoc[];
}

/** A webhook form's values: a webhook's, the defaults, or what was sent when it was refused. */
export interface WebhookDraft {
  name: string;
  url: string;
  events: string[];
  active: boolean;
}

export const NEW_WEBHOOK: WebhookDraft = { name: '', url: '', events: [WILDCARD], active: true };

/** An existing webhook's form: its URL is not shown (webhook URLs often carry a secret); an empty URL keeps it. */
export const draftOf = (w: WebhookDoc): WebhookDraft => ({ name: w.name, url: '', events: w.events, active: w.isActive });

export interface AdminWebhooksData {
  rows: AdminWebhookRow[];
  draft: WebhookDraft;
  /** The webhook just created and its signing secret: on this one page only. */
  created?: { webhook: WebhookDoc; secret: string };
}

const outcome = (d: WebhookDeliveryDoc) =>
  html`<li><code>${d.event}</code> ${d.deliveredAt.toISOString()} <strong>${d.success ? 'delivered' : 'failed'}</strong>${d.statusCode ? html` (HTTP ${d.statusCode})` : ''}${d.error ? html` <span class="muted">${d.error}</span>` : ''}</li>`;

/** What a test ping's answer page says of it. */
export const testNotice = (name: string, o: TestOutcome): SafeHtml =>
  html`<p class="notice" role="status" id="test-outcome">Test delivery to ${name}: <strong>${o.state === 'success' ? 'delivered' : 'failed'}</strong>${
    o.statusCode !== null ? html` (HTTP ${o.statusCode})` : ''
  }${o.error ? html` (${o.error})` : ''}.</p>`;

const EVENT_CHOICES: readonly { value: string; label: string }[] = [
  { value: WILDCARD, label: '* (every admin event)' },
  ...ADMIN_EVENTS.map((e) => ({ value: e, label: e })),
];

/** Name, URL, events and active of a webhook form; `key` keeps the ids of several forms on one page apart. */
function fields(key: string, d: WebhookDraft, existing: WebhookDoc | null = null): SafeHtml {
  const boxes = EVENT_CHOICES.map(
    (c, i) =>
      html`<li><input type="checkbox" id="${key}-event-${i}" name="events" value="${c.value}"${checked(d.events.includes(c.value))}> <label for="${key}-event-${i}">${c.label}</label></li>`,
  );
  return html`<label for="${key}-name">Name</label>
<input id="${key}-name" name="name" type="text" maxlength="100" required value="${d.name}">
${
  existing
    ? html`<label for="${key}-url">New URL (https; empty keeps the current one, on ${urlHost(existing.url)})</label>
<input id="${key}-url" name="url" type="url" maxlength="2000" value="${d.url}">`
    : html`<label for="${key}-url">URL (https)</label>
<input id="${key}-url" name="url" type="url" maxlength="2000" required value="${d.url}">`
}
<fieldset><legend>Events</legend><ul class="checkboxes">${boxes}</ul></fieldset>
<input type="checkbox" id="${key}-active" name="active" value="1"${checked(d.active)}> <label for="${key}-active">Active (gets deliveries)</label>`;
}

const created = ({ webhook, secret }: { webhook: WebhookDoc; secret: string }) => html`<section id="created-webhook" aria-labelledby="created-webhook-title">
<h2 id="created-webhook-title">Webhook ${webhook.name} created</h2>
<p role="status">Copy the signing secret now and give it to the receiver, which verifies X-Keyflow-Signature with it: it is shown only this once and cannot be shown again.</p>
<label for="webhook-secret">Signing secret</label>
<input id="webhook-secret" type="text" readonly value="${secret}" size="60">
</section>`;

function webhookSection(csrf: string, { webhook: w, deliveries }: AdminWebhookRow): SafeHtml {
  const path = adminWebhookPath(w._id);
  const key = `hook-${w._id}`;
  return html`<section class="webhook" data-webhook="${w._id}" aria-labelledby="${key}-title">
<h3 id="${key}-title">${w.name}</h3>
<p>→ <code>${urlHost(w.url)}</code> ${w.isActive ? '' : html`<span class="muted">inactive</span>`}</p>
<p>Events: ${w.events.join(', ')}</p>
${deliveries.length === 0 ? html`<p class="muted">No deliveries yet.</p>` : html`<ul class="deliveries">${deliveries.map(outcome)}</ul>`}
<form method="post" action="${path}/test">${csrfField(csrf)}<button type="submit">Send a test</button></form>
<details><summary>Edit ${w.name}</summary>
<form method="post" action="${path}">${csrfField(csrf)}
${fields(key, draftOf(w), w)}
<button type="submit">Save ${w.name}</button>
</form></details>
<details><summary>Delete ${w.name}</summary>
<form method="post" action="${path}/delete">${csrfField(csrf)}
<label for="${key}-confirm">Type the name <code>${w.name}</code> to delete this webhook and its delivery history</label>
<input id="${key}-confirm" name="confirm" type="text" maxlength="100" autocomplete="off" required>
<button type="submit">Delete ${w.name}</button>
</form></details>
</section>`;
}

export function adminWebhooksPage(res: Response, csrf: string, data: AdminWebhooksData, notice?: SafeHtml, status = 200): void {
  adminPage(res, {
    title: 'Webhooks',
    area: ADMIN_PAGES.webhooks,
    notice,
    status,
    body: html`${data.created ? created(data.created) : ''}
<p class="muted">Admin webhooks get the admin events (the audit log's), signed with their secret (docs/webhooks.md).</p>
<section id="new-webhook"><h2>New admin webhook</h2>
<form method="post" action="${ADMIN_PAGES.webhooks}">${csrfField(csrf)}
${fields('new', data.draft)}
<button type="submit">Create webhook</button>
</form></section>
<section><h2>Admin webhooks</h2>
${data.rows.length === 0 ? html`<p class="muted">No admin webhooks.</p>` : data.rows.map((r) => webhookSection(csrf, r))}
</section>`,
  });
}
