// User accounts at /api/oauth/me/admin/users, for a site admin's token
// (adminArea: the user is an admin now; adminScopes: the token carries one of the
// scopes of lib/model/admin-access.ts for the request). Search and paging,
// one account, changes (PATCH), reset of second factors, revocation of every
// token, deletion. The changes, their rules and admin events are
// lib/admin/user-changes.ts; here the api adds back-channel logout to the
// sessions a change ends.
import express, { Router, type Request } from 'express';
import { z } from 'zod';
import { adminUserJsonOf, adminUsersJson, revokedTokensJson } from '../../../lib/admin/user-json.js';
import { deleteUser, resetSecondFactors, revokeUserTokens, updateUser, type UserChangeDeps } from '../../../lib/admin/user-changes.js';
import { NotFoundError } from '../../../lib/model/errors.js';
import type { UserDoc } from '../../../lib/model/users.js';
import { findUserById, MAX_USER_SEARCH, searchUsers } from '../../../lib/store/users.js';
import { tokenActor } from '../../../lib/webhooks/event-sources.js';
import { methodNotAllowed } from '../../http/errors.js';
import { fieldsOf } from '../../http/input.js';
import { jsonBody, parse, refusalsAnswered, send } from '../../http/json-api.js';
import { adminScopes } from './admin-area.js';
import { endUserSessions, type SignOutDeps } from '../../http/sign-out.js';
import type { ApiContext } from '../../context.js';
import { ADMIN_RESOURCES } from '../../paths.js';

const BASE = ADMIN_RESOURCES.users;

/** Digits only (no sign, exponent or space), as a number within bounds. */
const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const Search = fieldsOf({
  q: z.string().max(MAX_USER_SEARCH, `must be at most ${MAX_USER_SEARCH} characters`).default(''),
  limit: wholeNumber(1, 200).default(50),
  offset: wholeNumber(0, 100_000_000).default(0),
});

export type AdminUsersApiDeps = SignOutDeps & Pick<ApiContext, 'keyring' | 'events' | 'audit'> & { idleMs: number };

export function adminUsersApiRoutes(deps: AdminUsersApiDeps): Router {
  const router = Router();
  const json = express.json({ limit: '16kb' });
  const changes: UserChangeDeps = { ...deps, endSessions: (userId) => endUserSessions(deps, userId, null, null) };

  /** The user named in the path, or a 404. */
  async function named(req: Request): Promise<UserDoc> {
    const id = String(req.params.id ?? '');
    const user = id.length <= 100 ? await findUserById(deps.store, id) : null;
    if (!user) throw new NotFoundError('no such user');
    return user;
  }

  const shown = (user: UserDoc) => adminUserJsonOf(deps.store, user);

  router.get(
    BASE,
    adminScopes(deps, 'users:read'),
    refusalsAnswered(async (req, res) => {
      const { q, limit, offset } = parse(Search, req.query);
      const { users, total } = await searchUsers(deps.store, { q, limit, offset });
      send(res, 200, { users: await adminUsersJson(deps.store, users), limit, offset, total });
    }),
  );
  router.all(BASE, methodNotAllowed(['GET']));

  const one = `${BASE}/:id`;
  router.get(
    one,
    adminScopes(deps, 'users:read'),
    refusalsAnswered(async (req, res) => send(res, 200, await shown(await named(req)))),
  );
  router.patch(
    one,
    adminScopes(deps, 'users:write'),
    json,
    refusalsAnswered(async (req, res) => {
      const target = await named(req);
      send(res, 200, await shown(await updateUser(changes, target, jsonBody(req, z.unknown()), tokenActor(req))));
    }),
  );
  router.delete(
    one,
    adminScopes(deps, 'users:delete'),
    refusalsAnswered(async (req, res) => {
      await deleteUser(changes, await named(req), tokenActor(req));
      send(res, 204);
    }),
  );
  router.all(one, methodNotAllowed(['GET', 'PATCH', 'DELETE']));

  router.post(
    `${one}/reset-2fa`,
    adminScopes(deps, 'users:write'),
    refusalsAnswered(async (req, res) => send(res, 200, await shown(await resetSecondFactors(changes, await named(req), tokenActor(req))))),
  );
  router.all(`${one}/reset-2fa`, methodNotAllowed(['POST']));
  router.post(
    `${one}/revoke-tokens`,
    adminScopes(deps, 'tokens:revoke'),
    refusalsAnswered(async (req, res) => {
      send(res, 200, revokedTokensJson(await revokeUserTokens(changes, await named(req), tokenActor(req))));
    }),
  );
  router.all(`${one}/revoke-tokens`, methodNotAllowed(['POST']));
  return router;
}
