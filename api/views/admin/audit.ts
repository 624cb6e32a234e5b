// /admin/audit: the audit log, newest first, with its filters (event, the
// actor's user id, a date range) and paging. A record's data is shown as JSON,
// escaped like everything else.
import type { Response } from 'express';
import { ADMIN_EVENTS, AUDIT_EVENTS, type AuditRecord } from '../../../lib/model/webhook-events.js';
import { html, type SafeHtml } from '../../html/html.js';
import { option } from '../teams.js';
import { adminPage, pager } from './layout.js';
import { ADMIN_PAGES } from '../../paths.js';

/** The filters as typed (the query string of the page). */
export interface AuditQuery {
  event: string;
  actor: string;
  from: string;
  to: string;
}

export interface AuditPageData {
  query: AuditQuery;
  records: AuditRecord[];
  offset: number;
  size: number;
  hasMore: boolean;
}

const actorText = ({ actor }: AuditRecord) =>
  [actor.type, actor.userId && `user ${actor.userId}`, actor.clientId && `client ${actor.clientId}`].filter(Boolean).join(' · ');

function filters(q: AuditQuery): SafeHtml {
  return html`<form method="get" action="${ADMIN_PAGES.audit}" class="filters">
<label for="audit-event">Event</label>
<select id="audit-event" name="event">${option('', 'Any event', q.event === '')}${[...ADMIN_EVENTS, ...AUDIT_EVENTS].map((e) => option(e, e, e === q.event))}</select>
<label for="audit-actor">Actor's user id</label>
<input id="audit-actor" name="actor" type="text" maxlength="100" value="${q.actor}">
<label for="audit-from">From (UTC date)</label>
<input id="audit-from" name="from" type="date" value="${q.from}">
<label for="audit-to">To (UTC date, included)</label>
<input id="audit-to" name="to" type="date" value="${q.to}">
<button type="submit">Filter</button>
</form>`;
}

export function adminAuditPage(res: Response, data: AuditPageData, notice?: SafeHtml, status = 200): void {
  const { query, records } = data;
  adminPage(res, {
    title: 'Audit log',
    area: ADMIN_PAGES.audit,
    notice,
    status,
    body: html`${filters(query)}
${records.length === 0 ? html`<p class="muted">No records.</p>` : ''}
<ol class="audit">${records.map(
      (r) => html`<li data-event="${r.name}"><time datetime="${r.createdAt.toISOString()}">${r.createdAt.toISOString()}</time> <code>${r.name}</code>
<span class="muted">${actorText(r)}</span>
<pre>${JSON.stringify(r.data, null, 2)}</pre></li>`,
    )}</ol>
${pager(ADMIN_PAGES.audit, { ...query }, data.offset, data.size, data.hasMore)}`,
  });
}
