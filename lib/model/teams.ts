// Teams: a tree of teams, their members (each with one role) and the team's
// member groups. The role rules are in team-roles.ts; the input rules here.
import { z } from 'zod';
import { TEAM_ROLES, type TeamRole } from './team-roles.js';

/** A tree is at most this many levels deep (a top-level team is level 1). */
export const MAX_TEAM_DEPTH = 8;
/** Groups one team may define. */
export const MAX_TEAM_GROUPS = 100;
/** Teams listed, and teams that get flat claims in an ID token (the nearest first). */
export const MAX_LISTED_TEAMS = 1_000;
export const MAX_CLAIMED_TEAMS = 100;

export interface TeamGroup {
  /** Immutable: claims carry it. */
  slug: string;
  name: string;
}

export interface TeamDoc {
  _id: string;
  name: string;
  /** Unique on the instance. */
  slug: string;
  description: string;
  parentId: string | null;
  memberGroupsEnabled: boolean;
  groups: TeamGroup[];
  createdAt: Date;
  updatedAt: Date;
}

export interface TeamMemberDoc {
  _id: string; // `${teamId}:${userId}`: one membership per user and team, by a unique insert
  teamId: string;
  userId: string;
  role: TeamRole;
  /** Slugs of the team's groups this member holds. */
  groups: string[];
  addedAt: Date;
  updatedAt: Date;
}

export const memberId = (teamId: string, userId: string) => `${teamId}:${userId}`;

/** A team as the user sees it: with the user's effective role, and whether it comes from an ancestor. */
export interface UserTeam {
  team: TeamDoc;
  role: TeamRole;
  /** The user's groups in this team (direct membership only; groups are not inherited). */
  groups: string[];
  /** False when the role comes only from an ancestor team. */
  direct: boolean;
  /** 0 for a direct membership, else how many levels below the nearest team the user belongs to. */
  distance: number;
}

// Linear-time patterns (no nested quantifiers): they see user input.
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export const TeamSlug = z.string().regex(SLUG, 'must be 1 to 63 lowercase letters, digits and inner hyphens');
export const TeamId = z.string().regex(ID, 'must be a team id');
const Name = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const Description = z.string().max(500, 'must be at most 500 characters');
const Role = z.enum(TEAM_ROLES, { message: `must be one of ${TEAM_ROLES.join(', ')}` });
const GroupSlugs = z.array(TeamSlug).max(MAX_TEAM_GROUPS);

/** Creating a team (API bodies use these snake_case names). */
export const NewTeamInput = z
  .object({
    name: Name,
    slug: TeamSlug,
    description: Description.default(''),
    parent_id: TeamId.nullable().default(null),
    member_groups_enabled: z.boolean().default(false),
  })
  .strict();
export type NewTeamInput = z.infer<typeof NewTeamInput>;

/** Changing a team's settings; `parent_id` moves it (null: to the top level). */
export const TeamChanges = z
  .object({
    name: Name.optional(),
    slug: TeamSlug.optional(),
    description: Description.optional(),
    parent_id: TeamId.nullable().optional(),
    member_groups_enabled: z.boolean().optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'name at least one setting to change');
export type TeamChanges = z.infer<typeof TeamChanges>;

/** Adding a member: an existing user, by id, email or username. */
export const NewMemberInput = z
  .object({
    user: z.string().trim().min(1, 'must name a user (id, email or username)').max(320),
    role: Role.default('member'),
    groups: GroupSlugs.default([]),
  })
  .strict();
export type NewMemberInput = z.infer<typeof NewMemberInput>;

export const MemberChanges = z
  .object({ role: Role.optional(), groups: GroupSlugs.optional() })
  .strict()
  .refine((v) => v.role !== undefined || v.groups !== undefined, 'name a role or groups to change');
export type MemberChanges = z.infer<typeof MemberChanges>;

export const NewGroupInput = z.object({ slug: TeamSlug, name: Name }).strict();
export type NewGroupInput = z.infer<typeof NewGroupInput>;

/** A team as the API shows it. */
export function teamJson(team: TeamDoc): Record<string, unknown> {
  return {
    id: team._id,
    name: team.name,
    slug: team.slug,
    description: team.description,
    parent_id: team.parentId,
    member_groups_enabled: team.memberGroupsEnabled,
    groups: team.groups.map((g) => ({ slug: g.slug, name: g.name })),
    created_at: team.createdAt.toISOString(),
  };
}

/** A team with the caller's standing in it. */
export function userTeamJson(t: UserTeam): Record<string, unknown> {
  return { ...teamJson(t.team), role: t.role, my_groups: t.groups, inherited: !t.direct };
}
