// The step-up confirmation pages: the factors form, the sudo path's form (the
// checkbox alone), and the page for a user with no second factor to confirm with.
import type { Response } from 'express';
import type { SessionDoc } from '../../lib/model/sessions.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import type { Loaded } from '../../lib/step-up/confirmation.js';
import { PAGES, STEP_UP_PATHS } from '../paths.js';

export interface ConfirmPageOptions {
  error?: string;
  status?: number;
}

export interface ConfirmPageFactors {
  /** Minutes of the sudo opt-in offered (0: none). */
  sudoMinutes: number;
  passkeys: boolean;
  /** TOTP or backup codes. */
  codes: boolean;
  /** The captcha's part of the form (null when the gate does not apply). */
  captcha: SafeHtml | null;
}

/** The factors form: the checkbox, the code and/or passkey, the sudo opt-in and the captcha when they apply. */
export function confirmPage(res: Response, session: SessionDoc, loaded: Loaded, factors: ConfirmPageFactors, opts: ConfirmPageOptions = {}): void {
  const { challenge } = loaded;
  const { sudoMinutes: sudoMins, passkeys, codes, captcha } = factors;
  const sudoOptIn =
    sudoMins > 0
      ? html`<label class="check"><input type="checkbox" name="sudo" value="yes" data-step-up-sudo> Don't ask again for ${String(sudoMins)} minutes</label>`
      : '';
  const id = challenge._id;
  sendPage(res, {
    title: 'Confirm with two-step verification',
    status: opts.status,
    scripts: ['simplewebauthn-browser.js', 'webauthn.js', 'step-up.js', ...(captcha ? ['captcha.js'] : [])],
    body: html`${actionHeader(loaded, opts)}
<form method="post" action="${STEP_UP_PATHS.authorize}" data-step-up>
${csrfField(session.csrf)}
<input type="hidden" name="challenge_id" value="${id}">
<label class="check"><input type="checkbox" name="confirm_action" value="yes" data-step-up-confirm> I confirm: ${challenge.action}</label>
${sudoOptIn}
${captcha ?? ''}
${
  codes
    ? html`<label for="code">Authentication code</label>
<input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" maxlength="20">
<p class="muted">The 6-digit code from your authenticator app, or one of your backup codes. A wrong code cancels this request.</p>
<button type="submit" name="decision" value="confirm" disabled data-step-up-enable>Confirm</button>`
    : ''
}
</form>
${
  passkeys
    ? html`<p><button type="button" class="secondary" disabled data-step-up-enable data-webauthn="second-factor" data-csrf="${session.csrf}" data-options="${STEP_UP_PATHS.passkeyOptions}?challenge_id=${id}" data-verify="${STEP_UP_PATHS.passkey}?challenge_id=${id}" data-request="${id}">Use a passkey</button></p>`
    : ''
}
<p class="error" role="alert" data-webauthn-error hidden></p>
${denyForm(session, challenge._id)}`,
  });
}

/** Within a sudo window: the checkbox and "Confirm", no factor inputs (the server checks the window again on submit). */
export function sudoConfirmPage(res: Response, session: SessionDoc, loaded: Loaded, opts: ConfirmPageOptions): void {
  const { challenge, client } = loaded;
  sendPage(res, {
    title: 'Confirm an action',
    status: opts.status,
    scripts: ['step-up.js'],
    body: html`${actionHeader(loaded, opts)}
<form method="post" action="${STEP_UP_PATHS.authorize}" data-step-up data-step-up-sudo-path>
${csrfField(session.csrf)}
<input type="hidden" name="challenge_id" value="${challenge._id}">
<label class="check"><input type="checkbox" name="confirm_action" value="yes" data-step-up-confirm> I confirm: ${challenge.action}</label>
<p class="muted">You confirmed an action of ${client.name} with your second factor a short while ago and chose not to be asked again for now.</p>
<button type="submit" name="decision" value="sudo" disabled data-step-up-enable>Confirm</button>
</form>
${denyForm(session, challenge._id)}`,
  });
}

/** The user has no second factor: how to enroll one, and the way back to the app (which got access_denied). */
export function enrollPage(res: Response, loaded: Loaded, back: string): void {
  sendPage(res, {
    title: 'Set up two-step verification',
    body: html`<h1>Set up two-step verification</h1>
<p><strong>${loaded.client.name}</strong> asked you to confirm an action with two-step verification, but your account has neither an authenticator app nor a passkey.</p>
<p>Add one at <a href="${PAGES.security}">Account security</a> (an authenticator app such as a TOTP app on your phone, or a passkey), then start the action again in ${loaded.client.name}.</p>
<p><a href="${back}">Return to ${loaded.client.name}</a></p>`,
  });
}

/** What every confirmation page starts with: the error if any, the asking app (verified or not) and the action. */
function actionHeader({ challenge, client }: Loaded, opts: ConfirmPageOptions): SafeHtml {
  return html`<h1>Confirm an action</h1>
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<p><strong>${client.name}</strong> ${client.isVerified ? html`<span class="badge" title="Keyflow verified this application">Verified</span>` : html`<span class="muted">(not verified by Keyflow)</span>`} asks you to confirm this action:</p>
<p class="action">${challenge.action}</p>`;
}

/** "Deny": its own form, so it needs neither the checkbox nor a factor. */
function denyForm(session: SessionDoc, challengeId: string): SafeHtml {
  return html`<form method="post" action="${STEP_UP_PATHS.authorize}" data-step-up-deny>
${csrfField(session.csrf)}
<input type="hidden" name="challenge_id" value="${challengeId}">
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`;
}
