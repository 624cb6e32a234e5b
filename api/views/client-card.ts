// Who is asking, on the sign-in and consent pages of an authorization request:
// the client's logo, its name (a link to its client_uri), and links to its
// privacy policy and terms of service, as dynamic registration records them
// (OpenID Connect Dynamic Registration §2).
//
// The logo is the one thing a page loads from elsewhere: the page's CSP admits
// exactly the logo's https origin in img-src (imgOrigin below), never more.
// Loading it tells the client's server that its page here is being viewed, from
// which address and when; it knows that already, having just sent the browser
// here. No Referer goes with it (the page's Referrer-Policy is no-referrer).
import { isHttpUri, logoOrigin } from '../../lib/model/client-metadata.js';
import type { ClientDoc } from '../../lib/model/clients.js';
import { html, type SafeHtml } from '../html/html.js';

export type ClientBranding = Pick<ClientDoc, 'name' | 'clientUri' | 'logoUri' | 'policyUri' | 'tosUri'>;

export interface ClientCard {
  html: SafeHtml;
  /** The origin the page's CSP must admit for the logo (sendPage's imgOrigin); null when no logo is shown. */
  imgOrigin: string | null;
}

/** A link out of the flow: a new tab, which learns nothing of this page (noopener, noreferrer). */
const outLink = (uri: string, text: string) => html`<a href="${uri}" target="_blank" rel="noopener noreferrer">${text}</a>`;

/**
 * The client's card, `lead` words before its name. Only what passes the
 * registration rules is shown (a link http(s), a logo https), so a value
 * stored before a rule existed is left out rather than trusted.
 */
export function clientCard(client: ClientBranding, lead = ''): ClientCard {
  const logo = client.logoUri ?? null;
  const imgOrigin = logo ? logoOrigin(logo) : null;
  const shown = (uri: string | null | undefined): uri is string => !!uri && isHttpUri(uri);
  const name = shown(client.clientUri) ? outLink(client.clientUri, client.name) : html`<strong>${client.name}</strong>`;
  const links = [
    shown(client.policyUri) ? outLink(client.policyUri, 'Privacy policy') : null,
    shown(client.tosUri) ? outLink(client.tosUri, 'Terms of service') : null,
  ].filter((l) => l !== null);
  return {
    imgOrigin,
    html: html`<div class="client-card">
${imgOrigin ? html`<img class="client-logo" src="${logo}" alt="${client.name}" width="64" height="64" referrerpolicy="no-referrer">` : ''}
<div><p class="client-name">${lead}${name}</p>
${links.length ? html`<p class="client-links muted">${links.map((l, i) => html`${i ? ' · ' : ''}${l}`)}</p>` : ''}</div>
</div>`,
  };
}
