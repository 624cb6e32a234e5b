// The user's GPG public keys at /api/oauth/me/gpg_keys. `gpg:read` lists and
// reads, `gpg:write` adds and deletes. Only the token user's keys exist here
// (another user's key is 404). Every refusal is JSON (api/http/json-api.ts).
import express, { Router, type Request } from 'express';
import { NotFoundError } from '../../lib/model/errors.js';
import { GpgKeyId, gpgKeyJson, MAX_ARMORED_KEY_LENGTH, NewGpgKeyInput } from '../../lib/model/gpg-keys.js';
import { parsePublicKey } from '../../lib/accounts/gpg-public-key.js';
import { addGpgKey, deleteGpgKey, findGpgKey, listGpgKeys } from '../../lib/store/gpg-keys.js';
import { methodNotAllowed } from '../http/errors.js';
import { requireAccessToken } from '../protocol/shared/bearer.js';
import type { ApiContext } from '../context.js';
import { jsonBody, parse, send, refusalsAnswered } from '../http/json-api.js';
import { RESOURCES } from '../paths.js';

const BASE = RESOURCES.gpgKeys;

export type GpgKeysApiDeps = Pick<ApiContext, 'issuer' | 'keyring' | 'store'>;

/** The key id a path names, checked before any lookup. */
const keyIdOf = (req: Request): string => parse(GpgKeyId, req.params.keyId, 'key id');

export function gpgKeysApiRoutes(deps: GpgKeysApiDeps): Router {
  const router = Router();
  const read = requireAccessToken(deps, ['gpg:read']);
  const write = requireAccessToken(deps, ['gpg:write']);
  // Room for JSON escaping around the largest key, which the input schema then refuses in words.
  const json = express.json({ limit: MAX_ARMORED_KEY_LENGTH * 2 });

  router.get(
    BASE,
    read,
    refusalsAnswered(async (req, res) => {
      const keys = await listGpgKeys(deps.store, req.access!.userId);
      send(res, 200, { gpg_keys: keys.map(gpgKeyJson) });
    }),
  );
  router.post(
    BASE,
    write,
    json,
    refusalsAnswered(async (req, res) => {
      const input = jsonBody(req, NewGpgKeyInput);
      const key = await addGpgKey(deps.store, req.access!.userId, await parsePublicKey(input.armored_public_key));
      res.set('Location', `${deps.issuer}${BASE}/${encodeURIComponent(key._id)}`);
      send(res, 201, gpgKeyJson(key));
    }),
  );
  router.all(BASE, methodNotAllowed(['GET', 'POST']));

  const one = `${BASE}/:keyId`;
  router.get(
    one,
    read,
    refusalsAnswered(async (req, res) => {
      const key = await findGpgKey(deps.store, req.access!.userId, keyIdOf(req));
      if (!key) throw new NotFoundError('no such GPG key');
      send(res, 200, gpgKeyJson(key));
    }),
  );
  router.delete(
    one,
    write,
    refusalsAnswered(async (req, res) => {
      if (!(await deleteGpgKey(deps.store, req.access!.userId, keyIdOf(req)))) throw new NotFoundError('no such GPG key');
      send(res, 204);
    }),
  );
  router.all(one, methodNotAllowed(['GET', 'DELETE']));
  return router;
}
