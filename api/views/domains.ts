// The "Domains" page: the user's custom domains, for each unverified one the
// TXT record to publish (in read-only fields, so it copies without stray
// markup) with "Check now" and "Remove", and the form to add a domain.
import type { Response } from 'express';
import { txtRecordName, txtRecordValue, type DomainDoc } from '../../lib/model/custom-domains.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { confirmedAction } from '../html/confirm.js';
import { accountShell, keysAndDomainsNav } from './account-nav.js';
import type { SignedIn } from '../http/signed-in.js';
import { PAGES } from '../paths.js';

export const domainPath = (id: string) => `${PAGES.domains}/${id}`;

const when = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function txtRecord(d: DomainDoc): SafeHtml {
  const name = `txt-name-${d._id}`;
  const value = `txt-value-${d._id}`;
  return html`<p>Publish this TXT record at your DNS provider, then choose "Check now":</p>
<label for="${name}">TXT record name for ${d.domain}</label>
<input id="${name}" type="text" readonly value="${txtRecordName(d.domain)}">
<label for="${value}">TXT record value for ${d.domain}</label>
<input id="${value}" type="text" readonly value="${txtRecordValue(d.token)}">`;
}

function domainItem(d: DomainDoc, csrf: string): SafeHtml {
  const state = d.verified
    ? html`<strong>Verified</strong>${d.verifiedAt ? html` <span class="muted">on ${when(d.verifiedAt)}</span>` : ''}`
    : html`<strong>Waiting for DNS</strong>`;
  return html`<li data-domain="${d.domain}"><strong>${d.domain}</strong> · ${state}
${d.verified ? '' : txtRecord(d)}
${d.verified ? '' : html`<form class="inline" method="post" action="${domainPath(d._id)}/verify">${csrfField(csrf)}<button type="submit">Check now</button></form>`}
${confirmedAction({
  csrf,
  action: `${domainPath(d._id)}/delete`,
  label: 'Remove',
  question: 'The domain leaves your account; adding it again needs a new check.',
  confirm: 'Yes, remove the domain',
})}</li>`;
}

/** `draft`: the name that was typed, shown again when it was refused. */
export function domainsPage(res: Response, signed: SignedIn, domains: DomainDoc[], notice?: SafeHtml, draft = '', status = 200): void {
  const { session } = signed;
  sendPage(res, {
    title: 'Domains',
    shell: accountShell(signed, PAGES.gpgKeys),
    status,
    body: html`${keysAndDomainsNav(PAGES.domains)}<h1>Domains</h1>
${notice ?? ''}
${domains.length === 0 ? html`<p class="muted">No domains yet.</p>` : ''}
<ul>${domains.map((d) => domainItem(d, session.csrf))}</ul>
<section><h2>Add a domain</h2>
<p class="muted">Keyflow checks the TXT record it shows you for a while; "Check now" asks again at once.</p>
<form method="post" action="${PAGES.domains}">
${csrfField(session.csrf)}
<label for="domain">Domain name</label>
<input id="domain" name="domain" type="text" required maxlength="1024" placeholder="example.com" value="${draft}">
<button type="submit">Add domain</button>
</form>
</section>`,
  });
}

export const errorNotice = (message: string) => html`<p class="error" role="alert">${message}</p>`;
export const infoNotice = (message: string) => html`<p class="muted" role="status">${message}</p>`;
