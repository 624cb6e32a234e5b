// The device pages: the user code form, the consent page for the device's
// request, and the answer page.
import type { Response } from 'express';
import type { DeviceCodeDoc } from '../../lib/model/device-authorization.js';
import type { ClientDoc } from '../../lib/model/clients.js';
import type { SessionDoc } from '../../lib/model/sessions.js';
import { html } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { allowOrDenyForm, appStanding, scopeList } from './consent.js';
import { PAGES } from '../paths.js';

/** The form for the user code, with the code prefilled or the last attempt's error. */
export function codePage(res: Response, csrf: string, opts: { code?: string; error?: string; status?: number } = {}): void {
  sendPage(res, {
    title: 'Connect a device',
    status: opts.status,
    body: html`<h1>Connect a device</h1>
${opts.error ? html`<p class="error" role="alert">${opts.error}</p>` : ''}
<p>Enter the code your device shows.</p>
<form method="post" action="${PAGES.device}">
${csrfField(csrf)}
<label for="user_code">Code</label>
<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" required maxlength="20" value="${opts.code ?? ''}">
<button type="submit">Continue</button>
</form>`,
  });
}

/** What the device asks for, and the allow and deny buttons. */
export function consentPage(
  res: Response,
  session: SessionDoc,
  { device, client, userCode }: { device: DeviceCodeDoc; client: ClientDoc; userCode: string },
): void {
  sendPage(res, {
    title: `Allow ${client.name}?`,
    body: html`<h1>Allow ${client.name} on your device?</h1>
${appStanding(client)}
<p>Check that your device shows the code <code>${userCode}</code>.</p>
${scopeList(client, device.scope)}
${allowOrDenyForm(PAGES.deviceConsent, session, ['user_code', userCode])}
<p class="muted">Allow only a device you are setting up yourself, never for a code someone sent you.</p>`,
  });
}

export function answeredPage(res: Response, client: ClientDoc, allowed: boolean): void {
  sendPage(res, {
    title: 'You can return to your device',
    body: html`<h1>You can return to your device</h1>
<p>${allowed ? `${client.name} is now allowed to continue on your device.` : `You denied ${client.name} access.`}</p>`,
  });
}
