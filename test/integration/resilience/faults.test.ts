// Faults across processes, as an operator meets them: two launchers (each an
// api and a worker, supervised) on one Temporal and one FerretDB of their own.
// Under a refresh and code-flow load a worker and then an api are killed
// (kill -9), FerretDB and Temporal are stalled (SIGSTOP / SIGCONT), an api is
// started while the database is stalled, and the signing key is rotated while
// relying parties verify tokens through either process. What a client sees is
// asserted: 503 with Retry-After within the bound (never a 500, never a hang),
// no token family lost, every token verifiable through either JWKS, and the
// processes recovering by themselves.
import { decodeProtectedHeader, jwtVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { type FixtureRp, newRp } from '../../../tools/fixtures/clients.js';
import { HttpUser } from '../../../tools/fixtures/http-user.js';
import { newUser } from '../../../tools/fixtures/users.js';
import { KEY_CACHE_SECONDS } from '../../../lib/model/key-phases.js';
import { s256Challenge } from '../../../lib/model/pkce.js';
import { newSecret } from '../../../lib/security/secrets.js';
import { type Json } from '../../support/harness.js';
import { runEntry } from '../../support/cli.js';
import { startCluster, startNode, type Cluster, type ClusterNode } from '../../support/cluster.js';
import { untilReady } from '../../support/keyflow-process.js';

/** The bound of one store or Temporal call on a request path (DEPENDENCY_TIMEOUT_MS), and what "did not hang" allows. */
const BOUND_MS = 2_000;
const NO_HANG_MS = 3 * BOUND_MS + 2_000;
const PASSWORD = 'fault tests password';
const REDIRECT = 'https://faults-rp.example/cb';
const SLOW = 240_000;

let cluster: Cluster;
let rp: FixtureRp;

beforeAll(async () => {
  cluster = await startCluster(2, { DEPENDENCY_TIMEOUT_MS: String(BOUND_MS), REFRESH_RETRY_WINDOW_SECONDS: '60' });
  rp = await newRp(cluster, {
    name: 'Faults RP',
    redirectUris: [{ type: 'equals', value: REDIRECT }],
    allowedScopes: ['openid', 'profile', 'offline_access'],
    idTokenSignedResponseAlg: 'RS256',
  });
}, SLOW);
afterAll(() => cluster?.stop(), SLOW);

const [first, second] = [() => cluster.nodes[0]!, () => cluster.nodes[1]!];

/** What a client saw: the status, the Retry-After of a 503, how long it took; a refused connection is `status` 0. */
interface Seen {
  status: number;
  retryAfter: string | null;
  ms: number;
  body: Json;
}

async function call(url: string, init: RequestInit = {}): Promise<Seen> {
  const started = Date.now();
  try {
    const res = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(NO_HANG_MS + 5_000) });
    const text = await res.text();
    let body: Json = text;
    try {
      body = JSON.parse(text);
    } catch {
      // a page
    }
    return { status: res.status, retryAfter: res.headers.get('retry-after'), ms: Date.now() - started, body };
  } catch {
    return { status: 0, retryAfter: null, ms: Date.now() - started, body: null };
  }
}

/** A 503 comes with Retry-After; nothing is a 500; nothing waited past the bound. */
function expectBounded(what: string, seen: Seen): void {
  expect([what, seen.status >= 500 && seen.status !== 503 ? seen.status : 'not 5xx other than 503']).toEqual([what, 'not 5xx other than 503']);
  if (seen.status === 503) expect([what, seen.retryAfter]).toEqual([what, expect.stringMatching(/^\d+$/)]);
  expect([what, seen.ms <= NO_HANG_MS]).toEqual([what, true]);
}

const form = (body: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: rp.basic },
  body: new URLSearchParams(body),
});

/** A new user signs in through `node`, allows the RP, and the code is redeemed there: a new token family. */
async function family(node: ClusterNode): Promise<{ accessToken: string; refreshToken: string; idToken: string }> {
  const { email } = await newUser(cluster, { prefix: 'faults', password: PASSWORD });
  const agent = new HttpUser(node.url);
  const verifier = newSecret();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: rp.id,
    redirect_uri: REDIRECT,
    scope: 'openid profile offline_access',
    code_challenge: s256Challenge(verifier),
    code_challenge_method: 'S256',
  });
  let step = await agent.get(`/api/oauth/authorize?${query.toString()}`);
  step = await agent.signIn(step, email, PASSWORD);
  step = await agent.submit(await step.res.text(), '/consent', { decision: 'allow' });
  const code = step.external!.searchParams.get('code')!;
  const seen = await call(`${node.url}/api/oauth/token`, form({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }));
  expect(seen.status).toBe(200);
  return { accessToken: seen.body.access_token, refreshToken: seen.body.refresh_token, idToken: seen.body.id_token };
}

/**
 * A client refreshing until `until()`: each refresh through the next node;
 * an answer it did not get (the api died, a 503) is retried with the same
 * token, through the other node, as a client does. Records every answer.
 */
async function keepRefreshing(start: string, until: () => boolean, seen: Seen[]): Promise<string> {
  let token = start;
  for (let i = 0; !until(); i++) {
    const node = cluster.nodes[i % cluster.nodes.length]!;
    const answer = await call(`${node.url}/api/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: token }));
    seen.push(answer);
    if (answer.status === 200) token = answer.body.refresh_token;
    else if (answer.status === 400)
      return token; // the family is lost: the test says so
    else await new Promise((r) => setTimeout(r, answer.status === 503 ? 500 : 200));
  }
  return token;
}

const kill = (pid: number | undefined, signal: NodeJS.Signals) => {
  if (pid === undefined) throw new Error('no such process');
  process.kill(pid, signal);
};

describe('two apis and two workers on one Temporal and one FerretDB', () => {
  it(
    'lose no token family when a worker and then an api are killed under load, and both come back by themselves',
    async () => {
      const families = await Promise.all([family(first()), family(second()), family(first()), family(second())]);
      let stop = false;
      const seen: Seen[] = [];
      const load = families.map((f) => keepRefreshing(f.refreshToken, () => stop, seen));
      const codeFlows = (async () => {
        while (!stop) await family(cluster.nodes[Math.floor(Math.random() * 2)]!).catch(() => undefined);
      })();

      await new Promise((r) => setTimeout(r, 2_000));
      const workerSince = first().lines.length;
      kill(first().pid('worker'), 'SIGKILL');
      await first().restarted('worker', workerSince, 60_000);
      await new Promise((r) => setTimeout(r, 2_000));
      const apiSince = second().lines.length;
      kill(second().pid('api'), 'SIGKILL');
      await second().restarted('api', apiSince, 60_000);
      await untilReady(second().url);
      await new Promise((r) => setTimeout(r, 5_000));
      stop = true;
      const last = await Promise.all(load);
      await codeFlows;

      // Nothing answered 500; every refresh answered 200, 503 (with Retry-After) or not at all (the api killed).
      for (const s of seen)
        expect([s.status, s.status === 503 ? s.retryAfter : 'n/a']).toEqual([expect.any(Number), s.status === 503 ? expect.stringMatching(/^\d+$/) : 'n/a']);
      expect(seen.filter((s) => s.status !== 200 && s.status !== 503 && s.status !== 0).map((s) => [s.status, s.body])).toEqual([]);
      // Every family still refreshes, through either api.
      for (const [i, token] of last.entries()) {
        const answer = await call(`${cluster.nodes[i % 2]!.url}/api/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: token }));
        expect([i, answer.status, answer.body?.error]).toEqual([i, 200, undefined]);
      }
      // And both apis serve a new code flow.
      await family(first());
      await family(second());
    },
    SLOW,
  );

  it(
    'answer 503 with Retry-After within the bound while FerretDB is stalled, never a 500, and recover when it resumes',
    async () => {
      const f = await family(first());
      kill(cluster.ferret.child.pid, 'SIGSTOP');
      try {
        await new Promise((r) => setTimeout(r, 500));
        for (const node of cluster.nodes) {
          expectBounded(
            `${node.name} refresh`,
            await call(`${node.url}/api/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: f.refreshToken })),
          );
          expectBounded(`${node.name} userinfo`, await call(`${node.url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${f.accessToken}` } }));
          expectBounded(`${node.name} sign-in page`, await call(`${node.url}/login`));
          const authorize = await call(
            `${node.url}/api/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: rp.id, redirect_uri: REDIRECT, scope: 'openid' })}`,
          );
          expectBounded(`${node.name} authorize`, authorize);
          expectBounded(`${node.name} readyz`, await call(`${node.url}/readyz`));
        }
      } finally {
        kill(cluster.ferret.child.pid, 'SIGCONT');
      }
      for (const node of cluster.nodes) await untilReady(node.url);
      const refreshed = await call(`${second().url}/api/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: f.refreshToken }));
      expect([refreshed.status, refreshed.body?.error]).toEqual([200, undefined]);
    },
    SLOW,
  );

  it(
    'answer 503 with Retry-After within the bound while Temporal is stalled, and recover when it resumes',
    async () => {
      const f = await family(second());
      kill(cluster.temporal.child.pid, 'SIGSTOP');
      let during: Seen;
      try {
        await new Promise((r) => setTimeout(r, 500));
        during = await call(`${first().url}/api/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: f.refreshToken }));
        expectBounded('refresh while Temporal is stalled', during);
        // What needs no Temporal still works: UserInfo, JWKS.
        expect((await call(`${second().url}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${f.accessToken}` } })).status).toBe(200);
        expect((await call(`${second().url}/.well-known/jwks.json`)).status).toBe(200);
      } finally {
        kill(cluster.temporal.child.pid, 'SIGCONT');
      }
      for (const node of cluster.nodes) await untilReady(node.url);
      // The client retries the same token: a rotation the stall held back is a retry within the window, not reuse.
      let retried = await call(`${second().url}/api/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: f.refreshToken }));
      for (let i = 0; retried.status === 503 && i < 20; i++) {
        await new Promise((r) => setTimeout(r, 1_000));
        retried = await call(`${second().url}/api/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: f.refreshToken }));
      }
      expect([retried.status, retried.body?.error]).toEqual([200, undefined]);
    },
    SLOW,
  );

  it(
    'start an api while FerretDB is stalled: it listens, says it is not ready, and becomes ready by itself',
    async () => {
      kill(cluster.ferret.child.pid, 'SIGSTOP');
      let late: ClusterNode | undefined;
      try {
        late = await startNode(cluster, 'late node');
        await new Promise((r) => setTimeout(r, 3_000));
        const waiting = await call(`${late.url}/readyz`);
        expect([waiting.status, waiting.retryAfter]).toEqual([503, expect.stringMatching(/^\d+$/)]);
      } finally {
        kill(cluster.ferret.child.pid, 'SIGCONT');
      }
      await untilReady(late.url, 120_000);
      expect((await call(`${late.url}/.well-known/openid-configuration`)).status).toBe(200);
    },
    SLOW,
  );

  it(
    'rotate the signing key while relying parties verify through either process: every token verifies through either JWKS',
    async () => {
      const jwksOf = async (node: ClusterNode) => {
        const seen = await call(`${node.url}/.well-known/jwks.json`);
        expect([node.name, seen.status]).toEqual([node.name, 200]);
        return seen.body as JSONWebKeySet;
      };
      /** A token of `node` (an ID token of a new family) verified against both nodes' JWKS as an RP fetching from either would. */
      async function verifiedEverywhere(node: ClusterNode): Promise<string> {
        const { idToken } = await family(node);
        for (const other of cluster.nodes) {
          const keys = createLocalJWKSet(await jwksOf(other));
          await expect(jwtVerify(idToken, keys, { issuer: cluster.issuer })).resolves.toBeDefined();
        }
        return decodeProtectedHeader(idToken).kid!;
      }
      const before = await verifiedEverywhere(first());
      const rotated = await runEntry('cli/keyflow.js', ['keys', 'rotate', '--alg', 'RS256'], cluster.env);
      expect(rotated.code).toBe(0);
      const newKid = (JSON.parse(rotated.stdout) as Json[]).find((k) => k.alg === 'RS256').kid as string;
      // Published first: both JWKS carry it within their cache time, while both processes still sign with the old key.
      const deadline = Date.now() + KEY_CACHE_SECONDS * 1000 + 15_000;
      while (!(await Promise.all(cluster.nodes.map(jwksOf))).every((j) => j.keys.some((k) => k.kid === newKid))) {
        expect(await verifiedEverywhere(second())).toBe(before);
        if (Date.now() > deadline) throw new Error('the new key was not published by both processes');
        await new Promise((r) => setTimeout(r, 2_000));
      }
      // The lead time passes (the key's signs_from moved back, as time would): both processes switch, and at every
      // moment of the switch a token of either verifies through either JWKS.
      await cluster.store.signingKeys.updateOne({ _id: newKid }, { $set: { signsFrom: new Date(Date.now() - 1_000) } });
      const kids = new Set<string>();
      const until = Date.now() + KEY_CACHE_SECONDS * 1000 + 10_000;
      while (Date.now() < until && !(kids.has(newKid) && (await verifiedEverywhere(first())) === newKid && (await verifiedEverywhere(second())) === newKid)) {
        for (const node of cluster.nodes) kids.add(await verifiedEverywhere(node));
      }
      expect([...kids]).toContain(newKid);
      expect(await verifiedEverywhere(first())).toBe(newKid);
      expect(await verifiedEverywhere(second())).toBe(newKid);
    },
    SLOW,
  );
});
