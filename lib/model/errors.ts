// Errors that carry a user-facing message; callers map them to their protocol
// (HTTP status and OAuth error code, or CLI exit code). Never a stack trace.
import type { ZodType } from 'zod';

export class ValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

export class ConflictError extends Error {}

export class NotFoundError extends Error {}

/** The actor may see the thing but their role does not allow the change. */
export class ForbiddenError extends Error {}

/** The HTTP status of a refusal these errors carry (APIs and pages alike); null for anything else, a real fault. */
export function refusalStatus(err: unknown): 400 | 403 | 404 | 409 | null {
  if (err instanceof ValidationError) return 400;
  if (err instanceof ForbiddenError) return 403;
  if (err instanceof NotFoundError) return 404;
  if (err instanceof ConflictError) return 409;
  return null;
}

/** `value` read with `schema`, or a ValidationError naming each problem. */
export function parseOrRefuse<T>(schema: ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ValidationError(zodProblems(parsed.error.issues));
  return parsed.data;
}

/** Formats zod issues as "field: message" lines. */
export function zodProblems(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string[] {
  return issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message));
}
