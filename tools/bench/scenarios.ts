// The compare benchmark's client: the same requests for every target (only
// the target's endpoints, client credentials and sign-in differ). Each
// scenario prepares N workers (virtual RPs or devices), then loops them for S
// seconds; one operation's latency is measured from its first request to its
// last answer.
import type { IdTokenAlg } from '../../lib/model/clients.js';
import { s256Challenge } from '../../lib/model/pkce.js';
import { newSecret } from '../../lib/security/secrets.js';
import { percentile } from './common.js';
import { REDIRECT_URI, type BenchAgent, type BenchClient, type BenchTarget } from './targets.js';

export interface ScenarioResult {
  opsPerSecond: number;
  ops: number;
  errors: number;
  p50ms: number;
  p95ms: number;
  p99ms: number;
  /** Distinct answers (device polls: the `error` field, e.g. authorization_pending). */
  answers?: Record<string, number>;
  firstError?: string;
}

export interface Scenario {
  name: string;
  /** What one operation is, for the table's legend. */
  op: string;
  idTokenAlg: IdTokenAlg;
  /** Measured on Keyflow alone: the peer has nothing to compare (its sign-in is a test handler). */
  keyflowOnly?: boolean;
  run(target: BenchTarget, client: BenchClient, workers: number, seconds: number): Promise<ScenarioResult>;
}

type TokenAnswer = { access_token?: string; refresh_token?: string; id_token?: string; error?: string; error_description?: string };

async function postForm<T>(url: string, client: BenchClient, body: Record<string, string>): Promise<{ status: number; body: T }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: client.basic, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

function authorizeUrl(target: BenchTarget, client: BenchClient, scope: string, challenge: string, extra: Record<string, string> = {}): string {
  const params = {
    response_type: 'code',
    client_id: client.id,
    redirect_uri: REDIRECT_URI,
    scope,
    state: 'bench',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
  return `${target.endpoints.authorization}?${new URLSearchParams(params)}`;
}

function codeOf(redirect: URL): string {
  const code = redirect.searchParams.get('code');
  if (!code)
    throw new Error(`no code in the redirect (${redirect.searchParams.get('error') ?? 'no error'}: ${redirect.searchParams.get('error_description') ?? ''})`);
  return code;
}

async function redeem(target: BenchTarget, client: BenchClient, code: string, verifier: string): Promise<TokenAnswer> {
  const r = await postForm<TokenAnswer>(target.endpoints.token, client, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
  });
  if (!r.body.access_token) throw new Error(`token ${r.status}: ${r.body.error ?? ''} ${r.body.error_description ?? ''}`);
  return r.body;
}

/** Signs each agent in (if needed) and consents for `client`; the tokens of that first authorization. */
async function firstTokens(
  target: BenchTarget,
  client: BenchClient,
  agents: BenchAgent[],
  scope: string,
  extra: Record<string, string> = {},
): Promise<TokenAnswer[]> {
  return Promise.all(
    agents.map(async (agent) => {
      const verifier = newSecret();
      const redirect = await agent.authorizeFirst(authorizeUrl(target, client, scope, s256Challenge(verifier), extra));
      return redeem(target, client, codeOf(redirect), verifier);
    }),
  );
}

/**
 * Runs `op` on every worker until `seconds` have passed. `op` returns an
 * answer to count, or throws (an error); `stopOnError` ends that worker's loop
 * (a refresh family whose token is lost cannot go on).
 */
async function loop<W>(workers: W[], seconds: number, op: (w: W) => Promise<string | void>, stopOnError = false): Promise<ScenarioResult> {
  const latencies: number[] = [];
  const answers: Record<string, number> = {};
  let errors = 0;
  let firstError: string | undefined;
  const started = Date.now();
  const end = started + seconds * 1000;
  await Promise.all(
    workers.map(async (w) => {
      while (Date.now() < end) {
        const t0 = performance.now();
        try {
          const answer = await op(w);
          latencies.push(performance.now() - t0);
          if (answer) answers[answer] = (answers[answer] ?? 0) + 1;
        } catch (error) {
          errors++;
          firstError ??= error instanceof Error ? error.message : String(error);
          if (stopOnError) return;
        }
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  const ms = (p: number) => Number(percentile(sorted, p).toFixed(1));
  return {
    opsPerSecond: Math.round(latencies.length / elapsed),
    ops: latencies.length,
    errors,
    p50ms: ms(50),
    p95ms: ms(95),
    p99ms: ms(99),
    ...(Object.keys(answers).length ? { answers } : {}),
    ...(firstError ? { firstError } : {}),
  };
}

/** authorize (session and consent remembered) → token (PKCE) → UserInfo. */
function codeFlow(idTokenAlg: IdTokenAlg): Scenario {
  return {
    name: `code-flow ${idTokenAlg}`,
    op: 'authorize → token → UserInfo',
    idTokenAlg,
    async run(target, client, workers, seconds) {
      const scope = 'openid profile email';
      const agents = await target.agents(workers);
      await firstTokens(target, client, agents, scope);
      return loop(agents, seconds, async (agent) => {
        const verifier = newSecret();
        const auth = await agent.request(authorizeUrl(target, client, scope, s256Challenge(verifier)));
        await auth.arrayBuffer();
        const location = auth.headers.get('location');
        if (!location) throw new Error(`authorize ${auth.status} without a redirect`);
        const tokens = await redeem(target, client, codeOf(new URL(location, target.endpoints.authorization)), verifier);
        const alg = (JSON.parse(Buffer.from(tokens.id_token?.split('.')[0] ?? '', 'base64url').toString() || '{}') as { alg?: string }).alg;
        if (alg !== idTokenAlg) throw new Error(`ID token alg ${alg ?? 'missing'}, expected ${idTokenAlg}`);
        const info = await fetch(target.endpoints.userinfo, { headers: { authorization: `Bearer ${tokens.access_token}` } });
        const claims = (await info.json()) as { email?: string };
        if (info.status !== 200 || !claims.email) throw new Error(`userinfo ${info.status}`);
      });
    },
  };
}

/** One refresh family per RP, each rotating its refresh token serially. */
const refresh: Scenario = {
  name: 'refresh rotation',
  op: 'one rotation',
  idTokenAlg: 'RS256',
  async run(target, client, workers, seconds) {
    // prompt=consent: OpenID Connect grants offline_access only with it (the peer enforces this).
    const first = await firstTokens(target, client, await target.agents(workers), 'openid offline_access', { prompt: 'consent' });
    const families = first.map((t) => {
      if (!t.refresh_token) throw new Error('no refresh token issued');
      return { current: t.refresh_token };
    });
    return loop(
      families,
      seconds,
      async (family) => {
        const r = await postForm<TokenAnswer>(target.endpoints.token, client, { grant_type: 'refresh_token', refresh_token: family.current });
        if (!r.body.refresh_token) throw new Error(`refresh ${r.status}: ${r.body.error ?? ''} ${r.body.error_description ?? ''}`);
        family.current = r.body.refresh_token;
      },
      true,
    );
  },
};

/** Each RP introspects its own valid access token. */
const introspection: Scenario = {
  name: 'introspection',
  op: 'one introspection (active)',
  idTokenAlg: 'RS256',
  async run(target, client, workers, seconds) {
    const tokens = await firstTokens(target, client, await target.agents(workers), 'openid profile email');
    return loop(tokens, seconds, async (t) => {
      const r = await postForm<{ active?: boolean; error?: string }>(target.endpoints.introspection, client, {
        token: t.access_token!,
        token_type_hint: 'access_token',
      });
      if (r.body.active !== true) throw new Error(`introspection ${r.status}: ${r.body.error ?? `active ${String(r.body.active)}`}`);
    });
  },
};

/** N pending device authorizations polled as fast as the devices can: the answer is authorization_pending (or slow_down). */
const devicePolling: Scenario = {
  name: 'device polling',
  op: 'one poll (pending)',
  idTokenAlg: 'RS256',
  async run(target, client, workers, seconds) {
    const codes = await Promise.all(
      Array.from({ length: workers }, async () => {
        const r = await postForm<{ device_code?: string; error?: string }>(target.endpoints.deviceAuthorization, client, { scope: 'openid' });
        if (!r.body.device_code) throw new Error(`device authorization ${r.status}: ${r.body.error ?? ''}`);
        return r.body.device_code;
      }),
    );
    return loop(codes, seconds, async (deviceCode) => {
      const r = await postForm<{ error?: string }>(target.endpoints.token, client, {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: deviceCode,
      });
      if (r.body.error !== 'authorization_pending' && r.body.error !== 'slow_down') throw new Error(`device poll ${r.status}: ${r.body.error ?? 'tokens'}`);
      return r.body.error;
    });
  },
};

/**
 * Password sign-ins from new browsers (the sign-in page, then email and
 * password), each virtual user again and again: what a login storm costs. The
 * password hash dominates (passwordHashParams), on libuv's thread pool.
 */
const passwordSignIn: Scenario = {
  name: 'password sign-in',
  op: 'sign-in page + password (a new browser)',
  idTokenAlg: 'RS256',
  keyflowOnly: true,
  async run(target, _client, workers, seconds) {
    const agents = await target.agents(workers);
    return loop(agents, seconds, async (agent) => {
      if (!agent.signInFresh) throw new Error(`${target.label} has no password sign-in`);
      await agent.signInFresh();
    });
  },
};

export const SCENARIOS: Scenario[] = [codeFlow('RS256'), codeFlow('ML-DSA-65'), refresh, introspection, devicePolling, passwordSignIn];
