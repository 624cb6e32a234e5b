// The request being served, for code deep below the route that needs to say
// which request caused something (the audit trail: IP, user agent, request
// id) without every function passing it on. Node's AsyncLocalStorage carries
// it through the awaits of one request; outside a request (the worker, the
// CLI) there is none. The api's middleware (api/http/request-id.ts) sets it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditRequest } from '../model/audit-events.js';

const storage = new AsyncLocalStorage<AuditRequest>();

/** The request this code runs for, if any. */
export function currentRequest(): AuditRequest | undefined {
  return storage.getStore();
}

/** Runs `next` (and everything it awaits) as part of `request`. */
export function runInRequest(request: AuditRequest, next: () => void): void {
  storage.run(request, next);
}
