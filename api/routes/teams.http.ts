// HTTP for the three team APIs (the caller's teams, one bound team, every team
// on the instance): how their input is read and their errors answered. Input
// problems are thrown as ValidationError, so every handler's one catch
// (teamHandler) turns each failure into its JSON answer, never a 500.
import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { refusalStatus, ValidationError, zodProblems } from '../../lib/domain/errors.js';
import { TeamId, TeamSlug, type TeamMemberDoc } from '../../lib/domain/teams.js';
import type { UserProfile } from '../../lib/store/users-by-id.js';
import { sendError } from '../http/errors.js';
import { fieldsOf } from '../http/input.js';

export function send(res: Response, status: number, body?: unknown): void {
  res.status(status).set('Cache-Control', 'no-store');
  if (body === undefined) res.end();
  else res.json(body);
}

const ERROR_CODE = { 400: 'invalid_request', 403: 'access_denied', 404: 'not_found', 409: 'conflict' } as const;

/** Answers a team error with its status; false for anything else (a real fault, left to the error handler). */
function sendTeamError(res: Response, err: unknown): boolean {
  const status = refusalStatus(err);
  if (status === null) return false;
  sendError(res, status, ERROR_CODE[status], (err as Error).message);
  return true;
}

/** A handler whose team and input errors become their answers. */
export function teamHandler(fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return async (req, res) => {
    try {
      await fn(req, res);
    } catch (err) {
      if (!sendTeamError(res, err)) throw err;
    }
  };
}

/** `value` read with `schema`, or a ValidationError naming each problem (prefixed with `field` for a lone value). */
export function parse<T extends z.ZodType>(schema: T, value: unknown, field?: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = zodProblems(result.error.issues);
  throw new ValidationError(field ? problems.map((p) => `${field}: ${p}`) : problems);
}

/** A JSON body read with `schema`; any other content type is refused. */
export function jsonBody<T extends z.ZodType>(req: Request, schema: T): z.output<T> {
  if (!req.is('application/json')) throw new ValidationError(['the body must be application/json']);
  return parse(schema, req.body);
}

const UserId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a user id');

/** The ids a path names, checked before any lookup (what a route has not got is absent). */
export function pathIds(req: Request): { teamId: string; userId?: string; slug?: string } {
  const { teamId, userId, slug } = req.params as Record<string, string | undefined>;
  return {
    teamId: parse(TeamId, teamId, 'team id'),
    ...(userId !== undefined ? { userId: parse(UserId, userId, 'user id') } : {}),
    ...(slug !== undefined ? { slug: parse(TeamSlug, slug, 'group') } : {}),
  };
}

/** `?cascade=true` deletes a team's child teams too; only "true" and "false" are accepted. */
const CascadeQuery = fieldsOf({ cascade: z.enum(['true', 'false'], { message: 'must be true or false' }).optional() });
export const cascadeOf = (req: Request): boolean => parse(CascadeQuery, req.query).cascade === 'true';

/** A membership as the APIs show it; with `profile`, who the member is. */
export function memberJson(m: TeamMemberDoc, profile?: UserProfile | null): Record<string, unknown> {
  const who = profile ? { name: profile.name, preferred_username: profile.username, picture: profile.picture } : {};
  return { user_id: m.userId, role: m.role, groups: m.groups, added_at: m.addedAt.toISOString(), ...who };
}
