// The account pages: the profile, the security page (authenticator app,
// passkeys, backup codes) and the backup codes shown once.
import type { Response } from 'express';
import type { SessionDoc } from '../../lib/domain/sessions.js';
import type { UserDoc } from '../../lib/domain/users.js';
import type { PasskeyDoc } from '../../lib/domain/passkeys.js';
import { hasUsablePassword } from '../../lib/store/passwordless-users.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';

export type Signed = { session: SessionDoc; user: UserDoc };

/** What the security page shows beyond the user: their passkeys and, during enrollment, the TOTP secret and its QR code. */
export interface SecurityFactors {
  passkeys: PasskeyDoc[];
  pendingTotp: { secret: string; qr: string } | null;
}

export function accountPage(res: Response, { session, user }: Signed, notice?: SafeHtml, status = 200): void {
  sendPage(res, {
    title: 'Your account',
    status,
    body: html`<h1>Your account</h1>
${notice ?? ''}
<p>${user.email} <span class="muted">(${user.username})</span></p>
<form method="post" action="/account/profile">
${csrfField(session.csrf)}
<label for="name">Name</label>
<input id="name" name="name" type="text" maxlength="200" value="${user.name}">
<label for="picture">Picture URL</label>
<input id="picture" name="picture" type="url" maxlength="2048" placeholder="https://…" value="${user.picture ?? ''}">
<button type="submit">Save</button>
</form>
<section><a href="/account/security">Security: authenticator app, passkeys, backup codes</a></section>
<section><a href="/account/password">${hasUsablePassword(user) ? 'Change your password' : 'Set a password'}</a> · <a href="/account/sessions">Where you are signed in</a></section>
<section><a href="/account/tokens">Personal access tokens</a> · <a href="/account/apps">Your apps</a> · <a href="/account/teams">Your teams</a> · <a href="/account/social">Sign-in methods</a></section>
<section><a href="/account/gpg-keys">GPG keys</a> · <a href="/account/domains">Domains</a></section>
${user.role === 'admin' ? html`<section><a href="/admin">Administration</a></section>` : ''}
<section><form method="post" action="/logout">${csrfField(session.csrf)}<button type="submit" class="secondary">Sign out</button></form></section>`,
  });
}

export function securityPage(res: Response, { session, user }: Signed, factors: SecurityFactors, notice?: SafeHtml, status = 200): void {
  const { passkeys, pendingTotp } = factors;
  let totp: SafeHtml;
  if (user.totp) {
    totp = html`<p>Authenticator app: <strong>on</strong></p>
<form method="post" action="/account/security/totp/remove">${csrfField(session.csrf)}<button type="submit" class="secondary">Remove authenticator app</button></form>`;
  } else if (pendingTotp) {
    const { secret, qr } = pendingTotp;
    totp = html`<p>Scan this QR code with your authenticator app, or type the secret key.</p>
<img class="qr" src="${qr}" alt="QR code for your authenticator app">
<p><span id="secret-label">Secret key</span>: <code class="secret" aria-labelledby="secret-label">${secret}</code></p>
<form method="post" action="/account/security/totp/confirm">
${csrfField(session.csrf)}
<label for="totp-code">Authentication code</label>
<input id="totp-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required maxlength="6">
<button type="submit">Confirm</button>
</form>`;
  } else {
    totp = html`<p>Authenticator app: off</p>
<form method="post" action="/account/security/totp/setup">${csrfField(session.csrf)}<button type="submit">Set up authenticator app</button></form>`;
  }
  sendPage(res, {
    title: 'Security',
    status,
    scripts: ['simplewebauthn-browser.js', 'webauthn.js'],
    body: html`<h1>Security</h1>
${notice ?? ''}
<section><h2>Authenticator app</h2>${totp}</section>
<section><h2>Passkeys</h2>
<ul>${passkeys.map(
      (p) => html`<li>${p.name} <span class="muted">added ${p.createdAt.toISOString().slice(0, 10)}</span>
<form class="inline" method="post" action="/account/security/passkeys/${p._id}/delete">${csrfField(session.csrf)}<button type="submit" class="secondary">Remove</button></form></li>`,
    )}</ul>
<label for="passkey-name">Passkey name</label>
<input id="passkey-name" type="text" maxlength="100" value="Passkey">
<button type="button" data-webauthn="register" data-csrf="${session.csrf}" data-options="/account/security/passkeys/options" data-verify="/account/security/passkeys" data-name-input="passkey-name">Add a passkey</button>
<p class="error" role="alert" data-webauthn-error hidden></p>
</section>
<section><h2>Backup codes</h2>
<p>${user.backupCodes.length} unused backup codes.</p>
<form method="post" action="/account/security/backup-codes">${csrfField(session.csrf)}<button type="submit" class="secondary">Generate new backup codes</button></form>
</section>
<p><a href="/account">Back to your account</a></p>`,
  });
}

export function backupCodesPage(res: Response, codes: string[], title = 'Your backup codes'): void {
  sendPage(res, {
    title,
    body: html`<h1>${title}</h1>
<p>Save these backup codes somewhere safe. Each works once, in place of an authentication code. They are shown only now.</p>
<ol class="codes" aria-label="Backup codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ol>
<p><a href="/account/security">Done</a></p>`,
  });
}
