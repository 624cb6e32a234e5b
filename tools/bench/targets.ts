// What differs between the systems the compare benchmark drives with the same
// client code: their endpoints (from discovery), how a client is registered,
// and how a virtual RP's user signs in and consents. Everything else (the
// requests of each scenario) is in scenarios.ts.
import type { IdTokenAlg } from '../../lib/model/clients.js';
import type { Store } from '../../lib/store/db.js';
import { newRp } from '../fixtures/clients.js';
import { KeyflowAgent } from './keyflow-agent.js';

export const REDIRECT_URI = 'https://bench-rp.example/cb';
export const BENCH_SCOPES = ['openid', 'profile', 'email', 'offline_access'];

export interface Endpoints {
  authorization: string;
  token: string;
  userinfo: string;
  introspection: string;
  deviceAuthorization: string;
}

export interface BenchClient {
  id: string;
  /** `Basic …` (client_secret_basic). */
  basic: string;
}

/** A virtual RP's user agent: its own user, its own cookies. */
export interface BenchAgent {
  /** One request with the agent's cookies, redirects not followed. */
  request(url: string): Promise<Response>;
  /** A client's first authorization for this user: signs in if needed and consents; the redirect to the RP. */
  authorizeFirst(authorizeUrl: string): Promise<URL>;
  /** A password sign-in from a new browser (Keyflow's agents only: the peer's sign-in is a test handler without passwords). */
  signInFresh?(): Promise<void>;
}

export interface BenchTarget {
  label: string;
  endpoints: Endpoints;
  /** One confidential client per scenario; null when the target cannot issue ID tokens with `idTokenAlg`. */
  client(scenario: string, idTokenAlg: IdTokenAlg): Promise<BenchClient | null>;
  /** `count` agents, each with its own user (made once per target, reused by every scenario). */
  agents(count: number): Promise<BenchAgent[]>;
}

interface Discovery {
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  introspection_endpoint: string;
  device_authorization_endpoint: string;
}

/**
 * The endpoints a discovery document names. `base` replaces their origin: a
 * Keyflow started without ISSUER still names http://localhost:3000.
 */
export async function discover(base: string): Promise<Endpoints> {
  const res = await fetch(new URL('/.well-known/openid-configuration', base));
  if (!res.ok) throw new Error(`discovery at ${base}: ${res.status}`);
  const d = (await res.json()) as Discovery;
  const at = (endpoint: string) => {
    const u = new URL(endpoint);
    return new URL(u.pathname + u.search, base).href;
  };
  return {
    authorization: at(d.authorization_endpoint),
    token: at(d.token_endpoint),
    userinfo: at(d.userinfo_endpoint),
    introspection: at(d.introspection_endpoint),
    deviceAuthorization: at(d.device_authorization_endpoint),
  };
}

/** A running Keyflow (npm start): clients and users are created in its store, users sign in over HTTP. */
export async function keyflowTarget(base: string, store: Store): Promise<BenchTarget> {
  const endpoints = await discover(base);
  let agents: BenchAgent[] = [];
  return {
    label: 'Keyflow',
    endpoints,
    async client(scenario, idTokenAlg) {
      const rp = await newRp(
        { store },
        {
          name: `bench compare ${scenario}`,
          redirectUris: [{ type: 'equals', value: REDIRECT_URI }],
          allowedScopes: BENCH_SCOPES,
          idTokenSignedResponseAlg: idTokenAlg,
        },
      );
      return { id: rp.id, basic: rp.basic };
    },
    async agents(count) {
      const run = Date.now().toString(36);
      while (agents.length < count) agents = [...agents, await KeyflowAgent.create(store, base, `bench-compare-${run}-${agents.length}`)];
      return agents.slice(0, count);
    },
  };
}
