// /admin/audit: the audit trail, newest first, with its filters (event or
// prefix, user, client, outcome, IP, a date range) and paging by cursor. Each
// record is one line (time, event, outcome, actor, subject, IP) that opens
// (details/summary) on every field it has: data as JSON, the request id, the
// user agent, its place in the chain. Everything is escaped; the list wraps
// instead of scrolling sideways on a narrow screen.
import type { Response } from 'express';
import type { FoundAuditRecord } from '../../../lib/audit/audit-search.js';
import { AUDIT_EVENT_NAMES, type AuditActor, type AuditSubject } from '../../../lib/model/audit-events.js';
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

/** The prefixes offered beside the names: each group of the catalogue (`login.*`, `user.*`, …). */
const PREFIXES = [...new Set(AUDIT_EVENT_NAMES.filter((n) => n.includes('.')).map((n) => `${n.split('.')[0]}.*`))];

export const actorText = (actor: AuditActor): string =>
  [actor.type, actor.userId && `user ${actor.userId}`, actor.clientId && `client ${actor.clientId}`].filter(Boolean).join(' · ');

export const subjectText = (subject: AuditSubject): string =>
  [
    subject.userId && `user ${subject.userId}`,
    subject.clientId && `client ${subject.clientId}`,
    subject.teamId && `team ${subject.teamId}`,
    subject.keyId && `key ${subject.keyId}`,
  ]
    .filter(Boolean)
    .join(' · ');

/** A time as a person reads it in a list: UTC, to the second. */
const shortTime = (t: Date) => `${t.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

function filters(q: AuditQuery): SafeHtml {
  return html`<form method="get" action="${ADMIN_PAGES.audit}" class="filters">
<label for="audit-event">Event</label>
<select id="audit-event" name="event">${option('', 'Any event', q.event === '')}<optgroup label="Groups">${PREFIXES.map((e) =>
    option(e, `${e} (all)`, e === q.event),
  )}</optgroup><optgroup label="Events">${AUDIT_EVENT_NAMES.map((e) => option(e, e, e === q.event))}</optgroup></select>
<label for="audit-user">User id <span class="muted">(who acted or was acted on)</span></label>
<input id="audit-user" name="user" type="text" maxlength="200" autocomplete="off" value="${q.user}">
<label for="audit-client">Client id <span class="muted">(which acted or was acted on)</span></label>
<input id="audit-client" name="client" type="text" maxlength="200" autocomplete="off" value="${q.client}">
<label for="audit-outcome">Outcome</label>
<select id="audit-outcome" name="outcome">${option('', 'Any', q.outcome === '')}${option('success', 'success', q.outcome === 'success')}${option('failure', 'failure', q.outcome === 'failure')}</select>
<label for="audit-ip">IP address</label>
<input id="audit-ip" name="ip" type="text" maxlength="200" autocomplete="off" value="${q.ip}">
<label for="audit-from">From (UTC date)</label>
<input id="audit-from" name="from" type="date" value="${q.from}">
<label for="audit-to">To (UTC date, included)</label>
<input id="audit-to" name="to" type="date" value="${q.to}">
<button type="submit">Filter</button> <a href="${ADMIN_PAGES.audit}">Clear filters</a>
</form>`;
}

/** One field of a record's details; nothing when it has no value. */
const field = (term: string, value: SafeHtml | string | undefined | null) => (value ? html`<dt>${term}</dt><dd>${value}</dd>` : '');

function record(r: FoundAuditRecord): SafeHtml {
  const subject = subjectText(r.subject);
  const data = Object.keys(r.data).length ? html`<pre>${JSON.stringify(r.data, null, 2)}</pre>` : null;
  return html`<li data-event="${r.event}" data-outcome="${r.outcome}" data-id="${r.id}"><details>
<summary><time datetime="${r.time.toISOString()}">${shortTime(r.time)}</time> <code>${r.event}</code> <span class="outcome-${r.outcome}">${r.outcome}</span>
<span class="audit-who">by ${actorText(r.actor)}${subject ? ` · on ${subject}` : ''}${r.ip ? ` · from ${r.ip}` : ''}</span></summary>
<dl>${field('Time', r.time.toISOString())}${field('Event', html`<code>${r.event}</code>`)}${field('Stream', r.stream)}${field('Outcome', r.outcome)}${field(
    'Actor',
    actorText(r.actor),
  )}${field('Subject', subject)}${field('IP address', r.ip)}${field('User agent', r.userAgent)}${field('Request id', r.requestId)}${field('Data', data)}${field(
    'Record id',
    r.id,
  )}${field('Sealed', r.position ? `yes, at ${r.position}` : 'not yet')}</dl>
</details></li>`;
}

export function adminAuditPage(res: Response, data: AuditPageData, notice?: SafeHtml, status = 200): void {
  const { query, records } = data;
  const { cursor, ...filtersOnly } = query;
  const nextHref = data.next ? `${ADMIN_PAGES.audit}?${new URLSearchParams({ ...filtersOnly, cursor: data.next }).toString()}` : null;
  const newestHref = cursor ? `${ADMIN_PAGES.audit}?${new URLSearchParams(filtersOnly).toString()}` : null;
  adminPage(res, {
    title: 'Audit log',
    area: ADMIN_PAGES.audit,
    notice,
    status,
    body: html`${filters(query)}
<h2 class="audit-heading">${cursor ? 'Older records' : 'Newest records'}</h2>
${records.length === 0 ? html`<p class="muted">No records.</p>` : html`<p class="muted">Open a record for every field it has.</p>`}
<ol class="audit">${records.map(record)}</ol>
${
  nextHref || newestHref
    ? html`<p class="pager">${newestHref ? html`<a href="${newestHref}">Newest records</a> ` : ''}${
        nextHref ? html`<a href="${nextHref}" rel="next">Older records</a>` : ''
      }</p>`
    : ''
}`,
  });
}
