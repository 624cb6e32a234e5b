// Errors that carry a user-facing message; callers map them to their protocol
// (HTTP status and OAuth error code, or CLI exit code). Never a stack trace.
export class ValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

export class ConflictError extends Error {}

export class NotFoundError extends Error {}

/** Formats zod issues as "field: message" lines. */
export function zodProblems(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string[] {
  return issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message));
}
