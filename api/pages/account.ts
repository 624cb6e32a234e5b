// The signed-in user's own pages: /account (profile, sign out) and
// /account/security (authenticator app, passkeys, backup codes). Changing a
// second factor needs a recent sign-in (REAUTH_MAX_AGE_SECONDS): otherwise the
// user signs in again and comes back to /account/security.
import express, { Router, type Request, type Response } from 'express';
import { generateSecret, generateURI } from 'otplib';
import QRCode from 'qrcode';
import { ADDRESS_PARTS } from '../../lib/model/profile-fields.js';
import { ProfileUpdate } from '../../lib/model/users.js';
import { seal } from '../../lib/security/kek.js';
import { generateBackupCodes, hashBackupCode } from '../../lib/security/backup-codes.js';
import { listPasskeys } from '../../lib/store/passkeys.js';
import { removePasskey } from '../../lib/store/sign-in-ways.js';
import { enableTotp, removeTotp, replaceBackupCodes, startTotpEnrollment } from '../../lib/store/second-factors.js';
import { changeProfile } from '../../lib/accounts/profile-changes.js';
import { checkTotpCode, totpSecret } from '../../lib/verification/second-factor.js';
import { registerPasskey, registrationOptions, relyingParty } from '../sign-in-checks/webauthn.js';
import { html, type SafeHtml } from '../html/html.js';
import { sendErrorPage } from '../html/layout.js';
import {
  accountPage,
  backupCodesPage,
  PROFILE_FORM_FIELDS,
  profileFieldLabel,
  securityPage as securityPageView,
  type ProfileFormValues,
  type SecurityFactors,
  type Signed,
} from '../views/account.js';
import { hasValidCsrf, requireRecentSignIn } from '../http/session.js';
import { sessionUser } from '../http/signed-in.js';
import { sessionActor } from '../../lib/webhooks/event-sources.js';
import { fieldsOf, formText, raw, text } from '../http/input.js';
import type { ApiContext } from '../context.js';
import { PAGES } from '../paths.js';
import { currentDate } from '../../lib/runtime/clock.js';

/** `events`: profile.updated goes to the user's webhooks. */
export type AccountDeps = Pick<ApiContext, 'store' | 'secureCookies' | 'issuer' | 'reauthMaxAgeMs' | 'kek' | 'log' | 'events' | 'audit'>;

const LAST_PASSKEY = 'This passkey is your only way to sign in: set a password, add another passkey or link an account before removing it.';

/** The profile form (ProfileUpdate checks the values), the TOTP confirmation, and a new passkey (checked by registerPasskey). */
const ProfileForm = fieldsOf(Object.fromEntries(PROFILE_FORM_FIELDS.map((f) => [f, raw])));
const TotpForm = fieldsOf({ code: formText });
const NewPasskey = fieldsOf({ name: text, response: raw });

/**
 * The profile change a form asks for, by claim name: the address parts
 * (`address_<part>`) as one address. A field the form did not send stays as it is.
 */
function profileChange(sent: Record<string, unknown>): Record<string, unknown> {
  const change: Record<string, unknown> = {};
  const address: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(sent)) {
    if (value === undefined) continue;
    const part = field.startsWith('address_') ? field.slice('address_'.length) : null;
    if (part !== null && part in ADDRESS_PARTS) address[part] = value;
    else change[field] = value;
  }
  if (Object.keys(address).length > 0) change.address = address;
  return change;
}

export function accountRoutes(deps: AccountDeps): Router {
  const router = Router();
  const rp = relyingParty(deps.issuer);
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const json = express.json({ limit: '64kb' });

  /** The signed-in user, or a redirect to sign-in (pages) / 401 (JSON). */
  async function signedIn(req: Request, res: Response, asJson = false): Promise<Signed | null> {
    const session = req.kfSession;
    const user = await sessionUser(deps, req);
    if (session && user) return { session, user };
    if (asJson) res.status(401).json({ error: 'login_required', error_description: 'sign in first' });
    else res.redirect(303, PAGES.login);
    return null;
  }

  /** Records a change the signed-in user made to their own second factors (durable before the answer). */
  const recordOwn = (
    s: Signed,
    event: 'totp.enabled' | 'totp.disabled' | 'backup_codes.generated' | 'passkey.added' | 'passkey.removed',
    data?: Record<string, unknown>,
  ) => deps.audit.record(event, { actor: { type: 'user', userId: s.user._id }, subject: { userId: s.user._id }, data });

  function formGuard(req: Request, res: Response, s: Signed): boolean {
    if (hasValidCsrf(req, s.session)) return true;
    sendErrorPage(res, 400, 'Session expired', 'Your session expired. Reload the page and try again.');
    return false;
  }

  /** A signed-in user with the form's CSRF token and a recent sign-in, for changes to second factors. */
  async function sensitiveForm(req: Request, res: Response): Promise<Signed | null> {
    const s = await signedIn(req, res);
    if (!s || !formGuard(req, res, s) || !requireRecentSignIn(res, s.session, deps.reauthMaxAgeMs, PAGES.security)) return null;
    return s;
  }

  /** The same for the passkey JSON calls (CSRF header; the re-authentication page as `redirect`). */
  async function sensitiveJson(req: Request, res: Response): Promise<Signed | null> {
    const s = await signedIn(req, res, true);
    if (!s) return null;
    if (!hasValidCsrf(req, s.session)) {
      res.status(403).json({ error: 'invalid_request', error_description: 'missing or wrong CSRF token' });
      return null;
    }
    return requireRecentSignIn(res, s.session, deps.reauthMaxAgeMs, PAGES.security, true) ? s : null;
  }

  router.get(PAGES.account, async (req, res) => {
    const s = await signedIn(req, res);
    if (s) accountPage(res, s);
  });

  router.post(PAGES.profile, form, async (req, res) => {
    const s = await signedIn(req, res);
    if (!s || !formGuard(req, res, s)) return;
    const sent = ProfileForm.parse(req.body);
    const parsed = ProfileUpdate.safeParse(profileChange(sent));
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${profileFieldLabel(i.path)}: ${i.message}`);
      // What they typed stays in the form, to be corrected rather than typed again.
      const typed: ProfileFormValues = Object.fromEntries(Object.entries(sent).map(([k, v]) => [k, typeof v === 'string' ? v : '']));
      return accountPage(res, s, html`<p class="error" role="alert">${problems.join('; ')}</p>`, 400, typed);
    }
    const result = await changeProfile(deps, s.user._id, parsed.data, sessionActor(s.user._id));
    accountPage(res, { ...s, user: result?.user ?? s.user }, html`<p role="status">Saved.</p>`);
  });

  /** The security page, with what it shows read now (a pending TOTP secret is opened for the QR code). */
  async function securityPage(res: Response, s: Signed, notice?: SafeHtml, status = 200): Promise<void> {
    const { user } = s;
    const passkeys = await listPasskeys(deps.store, user._id);
    let pendingTotp: SecurityFactors['pendingTotp'] = null;
    if (!user.totp && user.totpPending) {
      const secret = totpSecret(deps.kek, user, user.totpPending.secret);
      const uri = generateURI({ issuer: 'Keyflow', label: user.email, secret });
      pendingTotp = { secret, qr: await QRCode.toDataURL(uri, { margin: 1, width: 200 }) };
    }
    securityPageView(res, s, { passkeys, pendingTotp }, notice, status);
  }

  router.get(PAGES.security, async (req, res) => {
    const s = await signedIn(req, res);
    if (s) await securityPage(res, s);
  });

  router.post(PAGES.totpSetup, form, async (req, res) => {
    const s = await sensitiveForm(req, res);
    if (!s) return;
    const secret = generateSecret();
    await startTotpEnrollment(deps.store, s.user._id, { secret: seal(deps.kek, Buffer.from(secret), `totp:${s.user._id}`), createdAt: currentDate() });
    res.redirect(303, PAGES.security);
  });

  router.post(PAGES.totpConfirm, form, async (req, res) => {
    const s = await signedIn(req, res);
    if (!s || !formGuard(req, res, s)) return;
    const pending = s.user.totpPending;
    if (!pending) return res.redirect(303, PAGES.security);
    const probe = await checkTotpCode(totpSecret(deps.kek, s.user, pending.secret), TotpForm.parse(req.body).code.slice(0, 20));
    if (probe === null)
      return securityPage(res, s, html`<p class="error" role="alert">That code is not valid. Check your authenticator app's clock and try again.</p>`, 400);
    const codes = generateBackupCodes();
    await enableTotp(
      deps.store,
      s.user._id,
      { secret: pending.secret, lastTimeStep: probe, enabledAt: currentDate() },
      s.user.backupCodes.length === 0 ? codes.map((c) => hashBackupCode(deps.kek, c)) : undefined,
    );
    deps.log.info('totp enabled', { user: s.user._id });
    await recordOwn(s, 'totp.enabled');
    if (s.user.backupCodes.length === 0) await recordOwn(s, 'backup_codes.generated', { count: codes.length });
    if (s.user.backupCodes.length === 0) return backupCodesPage(res, codes, 'Authenticator app is on');
    res.redirect(303, PAGES.security);
  });

  router.post(PAGES.totpRemove, form, async (req, res) => {
    const s = await sensitiveForm(req, res);
    if (!s) return;
    await removeTotp(deps.store, s.user._id);
    deps.log.info('totp removed', { user: s.user._id });
    // Dropping an enrollment never confirmed removes no authenticator.
    if (s.user.totp) await recordOwn(s, 'totp.disabled');
    res.redirect(303, PAGES.security);
  });

  router.post(PAGES.backupCodes, form, async (req, res) => {
    const s = await sensitiveForm(req, res);
    if (!s) return;
    // Codes in place of a second factor the account does not have would be a password's worth of nothing.
    if (!s.user.totp && (await listPasskeys(deps.store, s.user._id)).length === 0)
      return securityPage(
        res,
        s,
        html`<p class="error" role="alert">Set up an authenticator app or a passkey first: backup codes stand in for one of them.</p>`,
        409,
      );
    const codes = generateBackupCodes();
    await replaceBackupCodes(
      deps.store,
      s.user._id,
      codes.map((c) => hashBackupCode(deps.kek, c)),
    );
    deps.log.info('backup codes generated', { user: s.user._id });
    await recordOwn(s, 'backup_codes.generated', { count: codes.length });
    backupCodesPage(res, codes);
  });

  router.post(PAGES.passkeyOptions, json, async (req, res) => {
    const s = await sensitiveJson(req, res);
    if (!s) return;
    res.set('Cache-Control', 'no-store').json(await registrationOptions(deps.store, rp, s.session, s.user));
  });

  router.post(PAGES.passkeys, json, async (req, res) => {
    const s = await sensitiveJson(req, res);
    if (!s) return;
    const body = NewPasskey.parse(req.body);
    const name = body.name?.trim() ? body.name.trim().slice(0, 100) : 'Passkey';
    const passkey = await registerPasskey(deps.store, rp, s.session, s.user, body.response, name);
    if (!passkey) return res.status(400).json({ error: 'invalid_request', error_description: 'The passkey could not be registered.' });
    deps.log.info('passkey added', { user: s.user._id });
    await recordOwn(s, 'passkey.added', { credential_id: passkey._id });
    res.json({ redirect: PAGES.security });
  });

  router.post(`${PAGES.passkeys}/:id/delete`, form, async (req, res) => {
    const s = await sensitiveForm(req, res);
    if (!s) return;
    // The last way to sign in stays: a passwordless account would be locked out.
    const credentialId = String(req.params.id).slice(0, 1024);
    const result = await removePasskey(deps.store, s.user._id, credentialId);
    if (result === 'last_way') return securityPage(res, s, html`<p class="error" role="alert">${LAST_PASSKEY}</p>`, 409);
    if (result === 'removed') {
      deps.log.info('passkey removed', { user: s.user._id });
      await recordOwn(s, 'passkey.removed', { credential_id: credentialId });
    }
    res.redirect(303, PAGES.security);
  });

  return router;
}
