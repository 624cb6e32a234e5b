// The consent page: the application, whether Keyflow verified it, each scope
// in plain words, Allow and Deny.
import type { Response } from 'express';
import { crossAppClientId, parseBoundTeamScope, SCOPES } from '../../lib/domain/scopes.js';
import type { AuthorizationRequestDoc } from '../../lib/domain/pending-authorization.js';
import type { ClientDoc } from '../../lib/store/clients.js';
import type { SessionDoc } from '../../lib/store/sessions.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';

/** A scope in plain words (the scope itself when it has none). */
export function describeScope(scope: string): string {
  const known = SCOPES[scope];
  if (known) return known.description;
  const team = parseBoundTeamScope(scope);
  if (team) return `Team ${team.teamId}: ${team.permission.replace(':', ' ')}`;
  const app = crossAppClientId(scope);
  if (app) return `Act on your behalf towards the application ${app}`;
  return scope;
}

/** Whether Keyflow verified the app, and its own description. */
export function appStanding(client: ClientDoc): SafeHtml {
  return html`<p>${client.isVerified ? html`<span class="badge" title="Keyflow verified this application">Verified</span>` : html`<span class="muted">Not verified by Keyflow</span>`}</p>
${client.description ? html`<p class="muted">${client.description}</p>` : ''}`;
}

/** Each requested scope in plain words, with the scope itself. */
export function scopeList(client: ClientDoc, scopes: string[]): SafeHtml {
  return html`<p>${client.name} asks to:</p>
<ul class="scopes">${scopes.map((s) => html`<li>${describeScope(s)} <span class="muted">(${s})</span></li>`)}</ul>`;
}

/** The Allow and Deny buttons, posting `decision` with the field that names the request. */
export function allowOrDenyForm(action: string, session: SessionDoc, [name, value]: [string, string]): SafeHtml {
  return html`<form method="post" action="${action}">
${csrfField(session.csrf)}
<input type="hidden" name="${name}" value="${value}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`;
}

export function consentPage(res: Response, session: SessionDoc, client: ClientDoc, request: AuthorizationRequestDoc): void {
  sendPage(res, {
    title: `Allow ${client.name}?`,
    body: html`<h1>Allow ${client.name}?</h1>
${appStanding(client)}
${scopeList(client, request.scope)}
${allowOrDenyForm('/consent', session, ['request', request._id])}
<p class="muted">You will be sent back to ${new URL(request.redirectUri).host}.</p>`,
  });
}
