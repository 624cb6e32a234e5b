// /admin/teams: every team on the instance and one team's page, where a site
// admin deletes it by typing its slug. The deletion is the team APIs' own (lib/teams/team-changes.ts) by
// an instance-wide actor, so it is audited and emits admin.team.delete.
import { Router, type Request, type Response } from 'express';
import { ConflictError, ValidationError } from '../../../lib/model/errors.js';
import { childTeams, findTeam, findTeams, listAllTeams } from '../../../lib/store/teams.js';
import { sendErrorPage } from '../../html/layout.js';
import { deleteTeam, teamFor, type TeamActor } from '../../../lib/teams/team-changes.js';
import { sessionActor } from '../../../lib/webhooks/event-sources.js';
import type { SafeHtml } from '../../html/html.js';
import { fieldsOf, formText } from '../../http/input.js';
import type { SignedIn } from '../../http/signed-in.js';
import { adminTeamPage, adminTeamPath, adminTeamsPage } from '../../views/admin/teams.js';
import { adminForm, adminOf, offsetOf, PAGE_SIZE, type AdminConsoleDeps } from './admin-page.js';
import { ADMIN_PAGES } from '../../paths.js';

const DeleteForm = fieldsOf({ confirm: formText, cascade: formText });

/** A site admin acts on teams as an owner of every team (like a `site:team:*` token). */
const siteActor = (s: SignedIn): TeamActor => ({ userId: s.user._id, instanceWide: true, event: sessionActor(s.user._id) });

export function adminTeamsRoutes(deps: AdminConsoleDeps): Router {
  const router = Router();

  router.get(ADMIN_PAGES.teams, async (req, res) => {
    const offset = offsetOf(req);
    const found = await listAllTeams(deps.store, PAGE_SIZE + 1, offset);
    const teams = found.slice(0, PAGE_SIZE);
    const parentIds = [...new Set(teams.flatMap((t) => (t.parentId === null ? [] : [t.parentId])))];
    const byId = new Map([...teams, ...(await findTeams(deps.store, parentIds))].map((t) => [t._id, t]));
    adminTeamsPage(res, { teams, byId, offset, size: PAGE_SIZE, hasMore: found.length > PAGE_SIZE });
  });

  async function show(req: Request, res: Response, notice?: SafeHtml, status = 200): Promise<void> {
    const id = String(req.params.teamId);
    const team = id.length <= 100 ? await findTeam(deps.store, id) : null;
    if (!team) return sendErrorPage(res, 404, 'Not found', 'There is no such team.');
    const [parent, children] = await Promise.all([team.parentId ? findTeam(deps.store, team.parentId) : null, childTeams(deps.store, [team._id])]);
    adminTeamPage(res, adminOf(req).session.csrf, { team, parent, children }, notice, status);
  }

  router.get(`${ADMIN_PAGES.teams}/:teamId`, (req, res) => show(req, res));

  adminForm(
    router,
    deps,
    `${ADMIN_PAGES.teams}/:teamId/delete`,
    (req) => adminTeamPath(String(req.params.teamId)),
    async (req, s) => {
      const body = DeleteForm.parse(req.body);
      const actor = siteActor(s);
      const { team } = await teamFor(deps.store, actor, String(req.params.teamId), 'delete');
      if (body.confirm.trim() !== team.slug) throw new ValidationError([`type the slug ${team.slug} to delete the team; nothing was deleted`]);
      await deleteTeam(deps, actor, team._id, body.cascade === '1').catch((err: unknown) => {
        throw err instanceof ConflictError ? new ConflictError(`${team.slug} has child teams: tick "Also delete its child teams" to delete them too`) : err;
      });
      return ADMIN_PAGES.teams;
    },
    (req, res, notice, status) => show(req, res, notice, status),
  );
  return router;
}
