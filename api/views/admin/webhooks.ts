// /admin/webhooks: the site's admin webhooks and how their latest deliveries
// went. Read only: admin webhooks are created and changed through the admin
// webhooks API (README "Webhooks").
import type { Response } from 'express';
import type { WebhookDeliveryDoc, WebhookDoc } from '../../../lib/store/webhooks.js';
import { html } from '../../html/html.js';
import { urlHost } from '../webhooks.js';
import { adminPage } from './layout.js';

export const ADMIN_WEBHOOKS = '/admin/webhooks';

export interface AdminWebhookRow {
  webhook: WebhookDoc;
  deliveries: WebhookDeliveryDoc[];
}

const outcome = (d: WebhookDeliveryDoc) =>
  html`<li><code>${d.event}</code> ${d.deliveredAt.toISOString()} <strong>${d.success ? 'delivered' : 'failed'}</strong>${d.statusCode ? html` (HTTP ${d.statusCode})` : ''}${d.error ? html` <span class="muted">${d.error}</span>` : ''}</li>`;

export function adminWebhooksPage(res: Response, rows: AdminWebhookRow[], apiPath: string): void {
  adminPage(res, {
    title: 'Webhooks',
    area: ADMIN_WEBHOOKS,
    body: html`<p class="muted">Admin webhooks get the admin events (the audit log's). Create, change, test and delete them through the admin webhooks API at <code>${apiPath}</code> (README, "Webhooks").</p>
${rows.length === 0 ? html`<p class="muted">No admin webhooks.</p>` : ''}
<ul class="webhooks">${rows.map(
      ({ webhook: w, deliveries }) => html`<li data-webhook="${w._id}"><strong>${w.name}</strong> → <code>${urlHost(w.url)}</code>
${w.isActive ? '' : html`<span class="muted">inactive</span>`}
<p>Events: ${w.events.join(', ')}</p>
${deliveries.length === 0 ? html`<p class="muted">No deliveries yet.</p>` : html`<ul class="deliveries">${deliveries.map(outcome)}</ul>`}</li>`,
    )}</ul>`,
  });
}
