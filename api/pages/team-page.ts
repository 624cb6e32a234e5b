// What the /account/teams routes share: the signed-in user as a team actor,
// form input parsed into the core's inputs, the team page's data, and the
// answer to a change (a redirect, or the page again with the refusal).
import express, { type Request, type Response, type Router } from 'express';
import { NotFoundError, refusalStatus } from '../../lib/model/errors.js';
import { MAX_LISTED_TEAMS } from '../../lib/model/teams.js';
import { canManage, may } from '../../lib/model/team-roles.js';
import type { Store } from '../../lib/store/db.js';
import { childTeams, findMember, findTeam, membersOf } from '../../lib/store/teams.js';
import { findUsersByIds } from '../../lib/store/users-by-id.js';
import { effectiveRole, userTeams } from '../../lib/teams/membership.js';
import { mayMoveTeam, teamFor, userActor, type TeamActor } from '../../lib/teams/team-changes.js';
import { teamInvitations } from '../../lib/teams/invitations.js';
import { sessionActor } from '../../lib/webhooks/event-sources.js';
import { sendErrorPage } from '../html/layout.js';
import { csrfGuard, signedInUser, type SignedIn } from '../http/signed-in.js';
import type { ApiContext } from '../context.js';
import { teamPage, type TeamPageData } from '../views/team.js';
import { errorNotice, teamPath } from '../views/teams.js';
import type { SafeHtml } from '../html/html.js';
import { PAGES } from '../paths.js';

export type TeamsPageDeps = Pick<ApiContext, 'store' | 'secureCookies' | 'events' | 'audit'>;

/** The team page lists at most this many members. */
const MAX_MEMBERS_SHOWN = 1_000;

export const actorOf = (s: SignedIn): TeamActor => userActor(s.user._id, sessionActor(s.user._id));

/** Teams the user may add child teams to (the parent choices of the forms). */
export async function parentChoices(store: Store, userId: string) {
  return (await userTeams(store, userId, MAX_LISTED_TEAMS)).filter((t) => may(t.role, 'create-child')).map((t) => t.team);
}

async function teamPageData(store: Store, s: SignedIn, teamId: string): Promise<TeamPageData> {
  const actor = actorOf(s);
  const { team, role } = await teamFor(store, actor, teamId, 'read');
  const canMove = await mayMoveTeam(store, actor, team);
  const members = await membersOf(store, team._id, MAX_MEMBERS_SHOWN);
  const [users, children, own, parent, choices, invitations] = await Promise.all([
    findUsersByIds(
      store,
      members.map((m) => m.userId),
    ),
    childTeams(store, [team._id]),
    findMember(store, team._id, s.user._id),
    team.parentId === null ? null : findTeam(store, team.parentId),
    canMove ? parentChoices(store, s.user._id) : [],
    canManage(role) ? teamInvitations({ store }, actor, team._id) : [],
  ]);
  return {
    team,
    role,
    canMove,
    own,
    parent: parent && (await effectiveRole(store, s.user._id, parent)) !== null ? parent : null,
    members: members.map((member) => ({ member, user: users.get(member.userId) })),
    invitations,
    children: children.sort((a, b) => a.slug.localeCompare(b.slug)),
    parentChoices: choices.filter((t) => t._id !== team._id),
  };
}

/** The team page; a team the user has no role on (or that is gone) is the 404 page. */
export async function showTeam(deps: TeamsPageDeps, res: Response, s: SignedIn, teamId: string, notice?: SafeHtml, status = 200): Promise<void> {
  let data: TeamPageData;
  try {
    data = await teamPageData(deps.store, s, teamId);
  } catch (err) {
    if (err instanceof NotFoundError) return sendErrorPage(res, 404, 'Not found', 'There is no such team, or you are not in it.');
    throw err;
  }
  teamPage(res, s, data, notice, status);
}

/**
 * Runs a change and answers with a redirect (Post/Redirect/Get) to where it
 * returns, or the team page; a refusal shows the team page again with its
 * message and status (the 404 page when the team itself is not there).
 */
export async function answerChange(deps: TeamsPageDeps, res: Response, s: SignedIn, teamId: string, run: () => Promise<string | void>): Promise<void> {
  try {
    res.redirect(303, (await run()) ?? teamPath(teamId));
  } catch (err) {
    const status = refusalStatus(err);
    if (status === null || !(err instanceof Error)) throw err;
    await showTeam(deps, res, s, teamId, errorNotice(err.message), status);
  }
}

export const teamForm = express.urlencoded({ extended: false, limit: '16kb' });

/**
 * A form POST to one team (`/account/teams/:teamId<suffix>`): signed in, CSRF
 * checked, then the change, answered by answerChange.
 */
export function teamFormRoute(
  router: Router,
  deps: TeamsPageDeps,
  suffix: string,
  change: (req: Request, s: SignedIn, teamId: string) => Promise<string | void>,
): void {
  router.post(`${PAGES.teams}/:teamId${suffix}`, teamForm, async (req, res) => {
    const s = await signedInUser(deps, req, res);
    if (!s || !csrfGuard(req, res, s)) return;
    const teamId = String(req.params.teamId);
    await answerChange(deps, res, s, teamId, () => change(req, s, teamId));
  });
}
