// Destructive actions behind a confirmation: the page shows a disclosure
// button; opening it shows what will happen and the button that does it. Plain
// HTML (details/summary), so it works without scripts and with the keyboard,
// and closing the disclosure is the way back.
import { html, type SafeHtml } from './html.js';
import { csrfField } from './layout.js';

export interface ConfirmedAction {
  csrf: string;
  /** Where the form posts. */
  action: string;
  /** The disclosure's label ("Revoke"). */
  label: string;
  /** What happens, in a sentence ("Apps using it stop working at once."). */
  question: string | SafeHtml;
  /** The button that does it ("Yes, revoke the token"). */
  confirm: string;
  /** Hidden fields the form posts with it. */
  hidden?: SafeHtml;
}

export function confirmedAction({ csrf, action, label, question, confirm, hidden }: ConfirmedAction): SafeHtml {
  return html`<details class="confirm"><summary>${label}</summary>
<form method="post" action="${action}">${csrfField(csrf)}${hidden ?? ''}<p>${question}</p><button type="submit" class="danger">${confirm}</button></form></details>`;
}
