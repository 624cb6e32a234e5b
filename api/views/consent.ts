// The consent page: the application (its card: logo, links), whether Keyflow
// verified it, each scope (and each claim asked for one by one) in plain
// words, the team picker for single-team scopes, the site-access
// gate for site scopes, Allow and Deny.
import type { Response } from 'express';
import { catalogued, crossAppClientId, isSiteScope, parseBoundTeamScope, SITE_CONFIRMATION_PHRASE, singleTeamPermission } from '../../lib/model/scopes.js';
import type { SingleTeamPermission } from '../../lib/model/team-roles.js';
import { STANDARD_CLAIM_WORDS, type StandardClaim } from '../../lib/model/claims.js';
import { claimsBeyondScopes } from '../../lib/model/claims-request.js';
import type { AuthorizationRequestDoc } from '../../lib/model/pending-authorization.js';
import type { ClientDoc } from '../../lib/model/clients.js';
import type { SessionDoc } from '../../lib/model/sessions.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import type { TeamChoice } from '../../lib/authorization/team-consent.js';
import { clientCard } from './client-card.js';
import { canPassSiteGate, type SiteGateStanding } from '../sign-in-checks/site-gate.js';
import { PAGES } from '../paths.js';

/** What each single-team permission lets the app do on the team the user picks. */
const TEAM_PERMISSION_WORDS: Record<SingleTeamPermission, string> = {
  read: 'See the team you pick: its name, settings and groups',
  write: 'Change the settings and groups of the team you pick',
  delete: 'Delete the team you pick (and, if asked, its child teams)',
  'member:read': 'See who belongs to the team you pick, with their roles and groups',
  'member:write': 'Add, change and remove members of the team you pick, never above your own role',
  'member:profile:read': 'See the names, usernames and pictures of the members of the team you pick',
};

/** A scope in plain words (the scope itself when it has none). */
export function describeScope(scope: string): string {
  const known = catalogued(scope);
  if (known) return known.description;
  const unbound = singleTeamPermission(scope);
  if (unbound) return TEAM_PERMISSION_WORDS[unbound];
  const team = parseBoundTeamScope(scope);
  if (team) return `${TEAM_PERMISSION_WORDS[team.permission].replace('the team you pick', 'the team')} (team ${team.teamId})`;
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

/** The claims asked for one by one (the `claims` parameter), beyond what the scopes release. */
export function claimList(claims: StandardClaim[]): SafeHtml | '' {
  if (!claims.length) return '';
  return html`<p>and, one by one:</p>
<ul class="claims">${claims.map((c) => html`<li>${STANDARD_CLAIM_WORDS[c]} <span class="muted">(${c})</span></li>`)}</ul>`;
}

/**
 * The Allow and Deny buttons, posting `decision` with the field that names the
 * request; `extra` goes inside the form; no Allow when it cannot succeed. Deny
 * skips the browser's checks of required fields (the site gate's phrase).
 */
export function allowOrDenyForm(action: string, session: SessionDoc, [name, value]: [string, string], extra: SafeHtml | '' = '', canAllow = true): SafeHtml {
  return html`<form method="post" action="${action}">
${csrfField(session.csrf)}
<input type="hidden" name="${name}" value="${value}">
${extra}
${canAllow ? html`<button type="submit" name="decision" value="allow">Allow</button>` : ''}
<button type="submit" name="decision" value="deny" class="secondary" formnovalidate>Deny</button>
</form>`;
}

/** The team picker: every team the user manages; a team where not every permission can be granted is listed but not selectable. */
function teamPicker(choices: TeamChoice[], picked: string | null): SafeHtml {
  if (choices.length === 0) return html`<p class="error" role="alert">This application needs a team, and you manage none (owner, co-owner or admin).</p>`;
  return html`<fieldset class="team-picker"><legend>Choose the team this application may use</legend>
${choices.map(
  (c) =>
    html`<label><input type="radio" name="team" value="${c.team._id}"${c.grantable ? '' : html` disabled`}${c.team._id === picked ? html` checked` : ''}> ${c.team.name} <span class="muted">(${c.team.slug}; you are ${c.role}${c.inherited ? ' through a parent team' : ''}${c.grantable ? '' : '; deleting needs owner or co-owner'})</span></label><br>`,
)}
</fieldset>`;
}

/** The site-access gate: only for a site admin with a second factor; a second factor now, and the phrase. */
function siteGate(standing: SiteGateStanding, request: AuthorizationRequestDoc, session: SessionDoc, passkeyDone: boolean): SafeHtml {
  if (!standing.admin) return html`<p class="error" role="alert">Only a site admin can grant access to the whole instance.</p>`;
  if (!canPassSiteGate(standing))
    return html`<p class="error" role="alert">Set up a second factor (authenticator app or passkey) in your account before granting site access.</p>`;
  const passkey = passkeyDone
    ? html`<p>Passkey confirmed.</p>`
    : standing.passkey
      ? html`<p><button type="button" class="secondary" data-webauthn="second-factor" data-options="${PAGES.consentPasskeyOptions}?request=${encodeURIComponent(request._id)}" data-verify="${PAGES.consentPasskey}" data-csrf="${session.csrf}" data-request="${request._id}">Confirm with a passkey</button></p>
<p class="error" role="alert" data-webauthn-error hidden></p>`
      : '';
  return html`<fieldset class="site-gate"><legend>Access to the whole instance</legend>
<p>This application asks for site-wide access. Confirm with your second factor and type <strong>${SITE_CONFIRMATION_PHRASE}</strong>.</p>
${passkeyDone || !standing.totpOrBackup ? '' : html`<label for="code">Authenticator or backup code</label><input id="code" name="code" autocomplete="one-time-code" inputmode="text">`}
${passkey}
<label for="confirmation">Type “${SITE_CONFIRMATION_PHRASE}”</label><input id="confirmation" name="confirmation" autocomplete="off" required>
</fieldset>`;
}

export interface ConsentExtras {
  teams: TeamChoice[] | null;
  pickedTeam: string | null;
  site: SiteGateStanding | null;
  passkeyDone: boolean;
  error?: string;
  status?: number;
}

export function consentPage(res: Response, session: SessionDoc, client: ClientDoc, request: AuthorizationRequestDoc, extras: ConsentExtras): void {
  const hasTeamPick = extras.teams !== null;
  const canAllow = (!hasTeamPick || extras.teams!.some((t) => t.grantable)) && (extras.site === null || canPassSiteGate(extras.site));
  const fields = html`${hasTeamPick ? teamPicker(extras.teams!, extras.pickedTeam) : ''}${extras.site ? siteGate(extras.site, request, session, extras.passkeyDone) : ''}`;
  const card = clientCard(client);
  sendPage(res, {
    title: `Allow ${client.name}?`,
    status: extras.status ?? 200,
    scripts: extras.site?.passkey ? ['simplewebauthn-browser.js', 'webauthn.js'] : [],
    imgOrigin: card.imgOrigin,
    body: html`<h1>Allow ${client.name}?</h1>
${card.html}
${appStanding(client)}
${extras.error ? html`<p class="error" role="alert">${extras.error}</p>` : ''}
${scopeList(client, request.scope)}
${claimList(claimsBeyondScopes(request.claims, request.scope))}
${request.scope.some(isSiteScope) ? html`<p class="warning">Site scopes reach every account and team on this instance.</p>` : ''}
${allowOrDenyForm(PAGES.consent, session, ['request', request._id], fields, canAllow)}
<p class="muted">You will be sent back to ${new URL(request.redirectUri).host}.</p>`,
  });
}
