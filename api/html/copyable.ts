// Long identifiers (client ids, user ids) in tables and headings: shown cut to
// the space they have, whole in the page (selectable, read by screen readers,
// in the title), with a button that copies them (assets/copy.js).
import { html, type SafeHtml } from './html.js';

/** `value` in a truncating code element and a copy button named after `what` ("client ID"). */
export function copyable(value: string, what: string): SafeHtml {
  return html`<span class="copyable"><code class="id" title="${value}">${value}</code><button type="button" class="copy" data-copy="${value}" aria-label="Copy ${what}" hidden>Copy</button></span>`;
}
