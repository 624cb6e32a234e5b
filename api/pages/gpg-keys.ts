// /account/gpg-keys: the signed-in user's GPG public keys in the browser — the
// list, adding one (a pasted armored block) and deleting one. CSRF on every
// form; a refusal is shown on the page with what was pasted, a success
// redirects back to the list (Post/Redirect/Get). Same checks as the API.
import express, { Router, type Response } from 'express';
import { parseOrRefuse, refusalStatus } from '../../lib/model/errors.js';
import { GpgKeyId, MAX_ARMORED_KEY_LENGTH, NewGpgKeyInput } from '../../lib/model/gpg-keys.js';
import { parsePublicKey } from '../../lib/accounts/gpg-public-key.js';
import { addGpgKey, deleteGpgKey, listGpgKeys } from '../../lib/store/gpg-keys.js';
import { html, type SafeHtml } from '../html/html.js';
import { csrfGuard, signedInUser, type SignedIn } from '../http/signed-in.js';
import { fieldsOf, formText } from '../http/input.js';
import { gpgKeysPage } from '../views/gpg-keys.js';
import type { ApiContext } from '../context.js';
import { PAGES } from '../paths.js';

export type GpgKeysPageDeps = Pick<ApiContext, 'store' | 'secureCookies'>;

const AddForm = fieldsOf({ armored_public_key: formText });

const errorNotice = (message: string) => html`<p class="error" role="alert">${message}</p>`;

export function gpgKeysPageRoutes(deps: GpgKeysPageDeps): Router {
  const router = Router();
  // Room for form encoding around the largest key, which the input schema then refuses in words.
  const form = express.urlencoded({ extended: false, limit: MAX_ARMORED_KEY_LENGTH * 4 });

  async function listPage(res: Response, s: SignedIn, notice?: SafeHtml, draft = '', status = 200): Promise<void> {
    gpgKeysPage(res, s, await listGpgKeys(deps.store, s.user._id), notice, draft, status);
  }

  router.get(PAGES.gpgKeys, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (s) await listPage(res, s);
  });

  router.post(PAGES.gpgKeys, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const pasted = AddForm.parse(req.body).armored_public_key;
    try {
      const input = parseOrRefuse(NewGpgKeyInput, { armored_public_key: pasted });
      await addGpgKey(deps.store, s.user._id, await parsePublicKey(input.armored_public_key));
      res.redirect(303, PAGES.gpgKeys);
    } catch (err) {
      const status = refusalStatus(err);
      if (status === null || !(err instanceof Error)) throw err;
      await listPage(res, s, errorNotice(err.message), pasted.length <= MAX_ARMORED_KEY_LENGTH ? pasted : '', status);
    }
  });

  router.post(`${PAGES.gpgKeys}/:keyId/delete`, form, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const id = GpgKeyId.safeParse(req.params.keyId);
    if (!id.success || !(await deleteGpgKey(deps.store, s.user._id, id.data))) return listPage(res, s, errorNotice('No such GPG key.'), '', 404);
    res.redirect(303, PAGES.gpgKeys);
  });

  return router;
}
