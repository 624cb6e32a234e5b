// What the three team APIs (the caller's teams, one bound team, every team on
// the instance) read from a request: the ids a path names and the cascade
// flag, each checked before any lookup. The JSON API helpers they share with
// the other APIs are in api/http/json-api.ts.
import type { Request } from 'express';
import { z } from 'zod';
import { TeamId, TeamSlug } from '../../../lib/model/teams.js';
import { InvitationId } from '../../../lib/model/team-invitations.js';
import { fieldsOf } from '../../http/input.js';
import { parse } from '../../http/json-api.js';

const UserId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a user id');

/** The ids a path names, checked before any lookup (what a route has not got is absent). */
export function pathIds(req: Request): { teamId: string; userId?: string; slug?: string; invitationId?: string } {
  const { teamId, userId, slug, invitationId } = req.params as Record<string, string | undefined>;
  return {
    teamId: parse(TeamId, teamId, 'team id'),
    ...(userId !== undefined ? { userId: parse(UserId, userId, 'user id') } : {}),
    ...(slug !== undefined ? { slug: parse(TeamSlug, slug, 'group') } : {}),
    ...(invitationId !== undefined ? { invitationId: parse(InvitationId, invitationId, 'invitation id') } : {}),
  };
}

/** The invitation a path names (the invitee's endpoints have no team in the path). */
export const invitationIdOf = (req: Request): string => parse(InvitationId, req.params.invitationId, 'invitation id');

/** `?cascade=true` deletes a team's child teams too; only "true" and "false" are accepted. */
const CascadeQuery = fieldsOf({ cascade: z.enum(['true', 'false'], { message: 'must be true or false' }).optional() });
export const cascadeOf = (req: Request): boolean => parse(CascadeQuery, req.query).cascade === 'true';
