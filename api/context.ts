// What every route and page factory of the api may use, built once per app by
// createApiContext. A module that needs part of it declares
// `Pick<ApiContext, …>`, so a test can build just that part.
import type { Config } from '../lib/config/env.js';
import type { FlowClient } from '../lib/flows/flow-client.js';
import type { Keyring } from '../lib/keys/keyring.js';
import type { Signer } from '../lib/keys/signer.js';
import type { Logger } from '../lib/runtime/log.js';
import type { Kek } from '../lib/security/kek.js';
import { cachedClientLookup, type ClientLookup } from '../lib/store/clients.js';
import type { Store } from '../lib/store/db.js';
import { cachedUserStatus, type UserStatusLookup } from '../lib/store/users.js';
import type { TemporalHandle } from '../lib/temporal/connection.js';
import type { EventPipeline } from '../lib/webhooks/event-pipeline.js';
import type { AuditTrail } from '../lib/audit/audit-trail.js';
import type { RotationSummary } from '../lib/grants/rotation-summary.js';
import { clientAssertionVerifier, type ClientAssertionVerifier } from './protocol/shared/client-assertion.js';
import { clientKeys } from './protocol/shared/client-keys.js';
import { requestObjectVerifier, type RequestObjectVerifier } from './protocol/shared/request-object.js';

/** The services an api process starts with (api/server.ts, and tests that run an api in-process). */
export interface ApiDeps {
  config: Config;
  log: Logger;
  store: Store;
  kek: Kek;
  keyring: Keyring;
  signer: Signer;
  temporal: TemporalHandle;
  /** The event pipeline: user events to the user's webhooks, admin events to the audit log and admin webhooks. */
  events: EventPipeline;
  /** The audit trail's recorder: every security event, with the request that caused it. */
  audit: AuditTrail;
  /** `refresh.rotated`, counted per grant and minute (lib/grants/rotation-summary.ts). */
  refreshRotations: RotationSummary;
}

export interface ApiContext extends ApiDeps {
  issuer: string;
  /** Cookies are `Secure` when the issuer is https. */
  secureCookies: boolean;
  /** The per-flow clients' (lib/flows) Temporal client and the worker's task queue; every call bounded (DEPENDENCY_TIMEOUT_MS). */
  flows: FlowClient;
  /** Client lookups by id, cached briefly (every client-authenticated request reads one). */
  findClient: ClientLookup;
  /** Whether a user is active, cached briefly (refresh and introspection need no more of the user). */
  userActive: UserStatusLookup;
  /** private_key_jwt at every client-authenticated endpoint; it caches clients' jwks_uri keys. */
  clientAssertions: ClientAssertionVerifier;
  /** Request objects (`request`, `request_uri`) at the authorization endpoint and PAR; on the same client keys. */
  requestObjects: RequestObjectVerifier;
  limits: Config['limits'];
  outbound: Config['outbound'];
  /** How recent a sign-in must be for a sensitive account or app change (REAUTH_MAX_AGE_SECONDS). */
  reauthMaxAgeMs: number;
  /** Resources that verify ML-DSA-65 access tokens (ACCESS_TOKEN_ML_DSA_RESOURCES). */
  mlDsaResources: readonly string[];
}

export function createApiContext(deps: ApiDeps): ApiContext {
  const { config, store } = deps;
  const issuer = config.issuer;
  const keys = clientKeys({ outbound: config.outbound });
  return {
    ...deps,
    issuer,
    secureCookies: issuer.startsWith('https:'),
    flows: { client: deps.temporal.client, taskQueue: config.temporal.taskQueue, callTimeoutMs: config.dependencyTimeoutMs },
    findClient: cachedClientLookup(store),
    userActive: cachedUserStatus(store),
    clientAssertions: clientAssertionVerifier({ issuer, store, keys, audience: config.clientAssertionAudience }),
    requestObjects: requestObjectVerifier({ issuer, store, keys, outbound: config.outbound }),
    limits: config.limits,
    outbound: config.outbound,
    reauthMaxAgeMs: config.reauthMaxAgeMs,
    mlDsaResources: config.mlDsaResources,
  };
}
