// /admin/users: a site admin searches the accounts and changes one through
// lib/admin/user-changes.ts (the admin API's and CLI's changes, rules and
// events: the last enabled admin stays, a taken email is refused). Sessions a
// change ends end here as in the admin API: with back-channel logout.
import { Router, type Request, type Response } from 'express';
import { deleteUser, resetSecondFactors, revokeUserTokens, updateUser, type UserChangeDeps } from '../../../lib/admin/user-changes.js';
import { NotFoundError, ValidationError } from '../../../lib/model/errors.js';
import type { UserDoc } from '../../../lib/model/users.js';
import { findUserById, MAX_USER_SEARCH, passkeyCounts, searchUsers, USER_SORTS, type UserSort } from '../../../lib/store/users.js';
import { sessionActor } from '../../../lib/webhooks/event-sources.js';
import type { SafeHtml } from '../../html/html.js';
import { sendErrorPage } from '../../html/layout.js';
import { fieldsOf, formText } from '../../http/input.js';
import { endUserSessions, type SignOutDeps } from '../../http/sign-out.js';
import type { ApiContext } from '../../context.js';
import { adminUserPage, adminUserPath, adminUsersPage, USER_DONE, userDraftOf, type UserDraft } from '../../views/admin/users.js';
import { errorNotice } from '../../views/teams.js';
import { doneAt, doneNotice } from '../../http/done.js';
import { adminForm, adminOf, offsetOf, PAGE_SIZE, sortingOf, type AdminConsoleDeps } from './admin-page.js';
import { ADMIN_PAGES } from '../../paths.js';

export type AdminUsersPageDeps = AdminConsoleDeps & SignOutDeps & Pick<ApiContext, 'config'>;

const Search = fieldsOf({ q: formText });
const sortingOfUsers = sortingOf(Object.keys(USER_SORTS) as [UserSort, ...UserSort[]], 'created');
const ProfileForm = fieldsOf({ name: formText, email: formText, username: formText, role: formText });
const ConfirmForm = fieldsOf({ confirm: formText, disabled: formText });

const draftFrom = (req: Request): UserDraft => {
  const f = ProfileForm.parse(req.body);
  return { name: f.name, email: f.email.trim(), username: f.username.trim(), role: f.role };
};

export function adminUsersRoutes(deps: AdminUsersPageDeps): Router {
  const router = Router();
  const idle = { ...deps, idleMs: deps.config.sessionIdleMs };
  const changes: UserChangeDeps = { ...deps, endSessions: (userId) => endUserSessions(idle, userId, null, null) };
  const actor = (req: Request) => sessionActor(adminOf(req).user._id);

  router.get(ADMIN_PAGES.users, async (req, res) => {
    const { q } = Search.parse(req.query);
    const { sort, dir } = sortingOfUsers(req);
    const offset = offsetOf(req);
    if (q.length > MAX_USER_SEARCH)
      return adminUsersPage(
        res,
        { q: '', sort, dir, rows: [], total: 0, offset: 0, size: PAGE_SIZE },
        errorNotice(`q: must be at most ${MAX_USER_SEARCH} characters`),
        400,
      );
    const { users, total } = await searchUsers(deps.store, { q, sort, dir, limit: PAGE_SIZE, offset });
    const passkeys = await passkeyCounts(
      deps.store,
      users.map((u) => u._id),
    );
    adminUsersPage(res, { q, sort, dir, rows: users.map((user) => ({ user, passkeys: passkeys.get(user._id) ?? 0 })), total, offset, size: PAGE_SIZE });
  });

  /** The user of the path, or null (a longer id is not looked up). */
  async function named(req: Request): Promise<UserDoc | null> {
    const id = String(req.params.id);
    return id.length <= 100 ? findUserById(deps.store, id) : null;
  }

  async function existing(req: Request): Promise<UserDoc> {
    const user = await named(req);
    if (!user) throw new NotFoundError('no such user');
    return user;
  }

  async function show(req: Request, res: Response, draft: (u: UserDoc) => UserDraft, notice?: SafeHtml, status = 200): Promise<void> {
    const user = await named(req);
    if (!user) return sendErrorPage(res, 404, 'Not found', 'There is no such user.');
    const passkeys = (await passkeyCounts(deps.store, [user._id])).get(user._id) ?? 0;
    adminUserPage(res, adminOf(req).session.csrf, { user, passkeys }, draft(user), notice ?? doneNotice(req, USER_DONE), status);
  }

  const one = `${ADMIN_PAGES.users}/:id`;
  const page = (req: Request) => adminUserPath(String(req.params.id));
  const done = (req: Request, what: keyof typeof USER_DONE) => doneAt(page(req), what);
  const again = (req: Request, res: Response, notice: SafeHtml, status: number) => show(req, res, userDraftOf, notice, status);
  router.get(one, (req, res) => show(req, res, userDraftOf));

  adminForm(
    router,
    deps,
    one,
    page,
    async (req) => {
      await updateUser(changes, await existing(req), draftFrom(req), actor(req));
      return done(req, 'saved');
    },
    (req, res, notice, status) => show(req, res, () => draftFrom(req), notice, status),
  );
  adminForm(
    router,
    deps,
    `${one}/disable`,
    page,
    async (req) => {
      const disabled = ConfirmForm.parse(req.body).disabled === '1';
      await updateUser(changes, await existing(req), { disabled }, actor(req));
      return done(req, disabled ? 'disabled' : 'enabled');
    },
    again,
  );
  adminForm(
    router,
    deps,
    `${one}/reset-2fa`,
    page,
    async (req) => {
      await resetSecondFactors(changes, await existing(req), actor(req));
      return done(req, 'second-factors');
    },
    again,
  );
  adminForm(
    router,
    deps,
    `${one}/revoke-tokens`,
    page,
    async (req) => {
      await revokeUserTokens(changes, await existing(req), actor(req));
      return done(req, 'tokens');
    },
    again,
  );
  adminForm(
    router,
    deps,
    `${one}/delete`,
    page,
    async (req) => {
      const user = await existing(req);
      if (ConfirmForm.parse(req.body).confirm.trim().toLowerCase() !== user.email)
        throw new ValidationError([`type the email ${user.email} to delete the account; nothing was deleted`]);
      await deleteUser(changes, user, actor(req));
      return ADMIN_PAGES.users;
    },
    again,
  );
  return router;
}
