// JSON APIs under /api/oauth/me (teams, domains, GPG keys, OAuth sources):
// how their input is read and their refusals answered. Input problems are
// thrown as ValidationError and domain refusals as their errors, so each
// handler's one catch (refusalsAnswered) turns every failure into its JSON
// answer, never a 500.
import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import { refusalStatus, ValidationError, zodProblems } from '../../lib/model/errors.js';
import { sendError } from './errors.js';

export function send(res: Response, status: number, body?: unknown): void {
  res.status(status).set('Cache-Control', 'no-store');
  if (body === undefined) res.end();
  else res.json(body);
}

const ERROR_CODE = { 400: 'invalid_request', 403: 'access_denied', 404: 'not_found', 409: 'conflict' } as const;

/** Answers a refusal with its status; false for anything else (a real fault, left to the error handler). */
function sendRefusal(res: Response, err: unknown): boolean {
  const status = refusalStatus(err);
  if (status === null) return false;
  sendError(res, status, ERROR_CODE[status], (err as Error).message);
  return true;
}

/** A handler whose refusals and input errors become their answers. */
export function refusalsAnswered(fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return async (req, res) => {
    try {
      await fn(req, res);
    } catch (err) {
      if (!sendRefusal(res, err)) throw err;
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
