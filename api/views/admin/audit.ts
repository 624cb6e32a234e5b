// /admin/audit: the audit trail, newest first, with its filters (event or
// prefix, user, client, outcome, IP, a date range) and a next-page link. A
// record's data is shown as JSON, escaped like everything else.
import type { Response } from 'express';
import type { FoundAuditRecord } from '../../../lib/audit/audit-search.js';
import { AUDIT_EVENT_NAMES } from '../../../lib/model/audit-events.js';
import { html, type SafeHtml } from '../../html/html.js';
import { option } from '../teams.js';
import { adminPage } from './layout.js';
import { ADMIN_PAGES } from '../../paths.js';

/** The filters as typed (the query string of the page). */
export interface AuditQuery {
  event: string;
  user: string;
  client: string;
  outcome: string;
  ip: string;
  from: string;
  to: string;
  cursor: string;
}

export interface AuditPageData {
  query: AuditQuery;
  records: FoundAuditRecord[];
  next: string | null;
}

/** The prefixes offered beside the names: each group of the catalogue (`login.*`, `token.*`, …). */
const PREFIXES = [...new Set(AUDIT_EVENT_NAMES.filter((n) => n.includes('.')).map((n) => `${n.split('.')[0]}.*`))];

const actorText = ({ actor }: FoundAuditRecord) =>
  [actor.type, actor.userId && `user ${actor.userId}`, actor.clientId && `client ${actor.clientId}`].filter(Boolean).join(' · ');

function filters(q: AuditQuery): SafeHtml {
  return html`<form method="get" action="${ADMIN_PAGES.audit}" class="filters">
<label for="audit-event">Event</label>
<select id="audit-event" name="event">${option('', 'Any event', q.event === '')}${PREFIXES.map((e) => option(e, `${e} (all)`, e === q.event))}${AUDIT_EVENT_NAMES.map((e) => option(e, e, e === q.event))}</select>
<label for="audit-user">User id</label>
<input id="audit-user" name="user" type="text" maxlength="200" value="${q.user}">
<label for="audit-client">Client id</label>
<input id="audit-client" name="client" type="text" maxlength="200" value="${q.client}">
<label for="audit-outcome">Outcome</label>
<select id="audit-outcome" name="outcome">${option('', 'Any', q.outcome === '')}${option('success', 'success', q.outcome === 'success')}${option('failure', 'failure', q.outcome === 'failure')}</select>
<label for="audit-ip">IP address</label>
<input id="audit-ip" name="ip" type="text" maxlength="200" value="${q.ip}">
<label for="audit-from">From (UTC date)</label>
<input id="audit-from" name="from" type="date" value="${q.from}">
<label for="audit-to">To (UTC date, included)</label>
<input id="audit-to" name="to" type="date" value="${q.to}">
<button type="submit">Filter</button>
</form>`;
}

export function adminAuditPage(res: Response, data: AuditPageData, notice?: SafeHtml, status = 200): void {
  const { query, records } = data;
  const nextHref = data.next ? `${ADMIN_PAGES.audit}?${new URLSearchParams({ ...query, cursor: data.next }).toString()}` : null;
  adminPage(res, {
    title: 'Audit log',
    area: ADMIN_PAGES.audit,
    notice,
    status,
    body: html`${filters(query)}
${records.length === 0 ? html`<p class="muted">No records.</p>` : ''}
<ol class="audit">${records.map(
      (
        r,
      ) => html`<li data-event="${r.event}" data-outcome="${r.outcome}"><time datetime="${r.time.toISOString()}">${r.time.toISOString()}</time> <code>${r.event}</code> ${r.outcome}
<span class="muted">${actorText(r)}${r.ip ? ` · ${r.ip}` : ''}</span>
<pre>${JSON.stringify({ subject: r.subject, data: r.data, request_id: r.requestId, user_agent: r.userAgent, sealed: r.position ?? false }, null, 2)}</pre></li>`,
    )}</ol>
${nextHref ? html`<p class="pager"><a href="${nextHref}" rel="next">Older records</a></p>` : ''}`,
  });
}
