// The "GPG keys" page: the user's public keys with their fingerprints and
// subkeys, a delete button each, and the form to add one (an armored block).
import type { Response } from 'express';
import type { GpgKeyDoc } from '../../lib/model/gpg-keys.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfField, sendPage } from '../html/layout.js';
import { confirmedAction } from '../html/confirm.js';
import { accountShell, keysAndDomainsNav } from './account-nav.js';
import type { SignedIn } from '../http/signed-in.js';
import { PAGES } from '../paths.js';

const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : 'never');

/** A fingerprint in groups of four, as gpg prints it. */
const grouped = (fingerprint: string) => fingerprint.replace(/(.{4})(?=.)/g, '$1 ');

function keyItem(k: GpgKeyDoc, csrf: string): SafeHtml {
  return html`<li data-gpg-key="${k.fingerprint}"><strong>${k.name || 'No user ID'}</strong> <span class="muted">${k.algorithm}</span>
<p><span class="muted">Fingerprint</span> <code>${grouped(k.fingerprint)}</code></p>
<p class="muted">Key ID ${k.keyId} · created ${day(k.createdAt)} · expires ${day(k.expiresAt)} · added ${day(k.addedAt)}</p>
${k.subkeys.length ? html`<p class="muted">Subkeys: ${k.subkeys.map((s) => `${s.keyId} (${s.algorithm}, expires ${day(s.expiresAt)})`).join(', ')}</p>` : ''}
${confirmedAction({ csrf, action: `${PAGES.gpgKeys}/${k._id}/delete`, label: 'Delete', question: 'Apps no longer see this key on your account.', confirm: 'Yes, delete the key' })}</li>`;
}

/** `draft`: what was pasted, shown again when it was refused. */
export function gpgKeysPage(res: Response, signed: SignedIn, keys: GpgKeyDoc[], notice?: SafeHtml, draft = '', status = 200): void {
  const { session } = signed;
  sendPage(res, {
    title: 'GPG keys',
    shell: accountShell(signed, PAGES.gpgKeys),
    status,
    body: html`${keysAndDomainsNav(PAGES.gpgKeys)}<h1>GPG keys</h1>
${notice ?? ''}
${keys.length === 0 ? html`<p class="muted">No GPG keys yet.</p>` : ''}
<ul>${keys.map((k) => keyItem(k, session.csrf))}</ul>
<section><h2>Add a GPG key</h2>
<form method="post" action="${PAGES.gpgKeys}">
${csrfField(session.csrf)}
<label for="gpg-key">Public key (the output of <code>gpg --armor --export &lt;key id&gt;</code>)</label>
<textarea id="gpg-key" name="armored_public_key" rows="10" required placeholder="-----BEGIN PGP PUBLIC KEY BLOCK-----">${draft}</textarea>
<button type="submit">Add key</button>
</form>
</section>`,
  });
}
