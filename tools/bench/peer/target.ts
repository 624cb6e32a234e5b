// node-oidc-provider as a compare benchmark target: a child process with one
// static client per scenario, in memory or on the peer's MongoDB database.
import { randomBytes } from 'node:crypto';
import type { IdTokenAlg } from '../../../lib/model/clients.js';
import { basicAuth } from '../../fixtures/clients.js';
import { HttpUser } from '../../fixtures/http-user.js';
import { discover, REDIRECT_URI, type BenchAgent, type BenchTarget } from '../targets.js';
import { startPeer } from './process.js';

/** A peer user agent: the interaction handler signs in the account named by the x-bench-account header. */
class PeerAgent implements BenchAgent {
  private readonly http: HttpUser;

  constructor(
    private readonly issuer: string,
    private readonly account: string,
  ) {
    this.http = new HttpUser(issuer);
  }

  request(url: string): Promise<Response> {
    return this.http.request(url);
  }

  async authorizeFirst(authorizeUrl: string): Promise<URL> {
    let url = new URL(authorizeUrl);
    let res = await this.http.request(url.href);
    for (let hops = 0; hops < 6 && res.status >= 300 && res.status < 400; hops++) {
      url = new URL(res.headers.get('location')!, url);
      if (url.origin !== this.issuer) return url;
      const headers = url.pathname.startsWith('/interaction/') ? { 'x-bench-account': this.account } : undefined;
      res = await this.http.request(url.href, { headers });
    }
    throw new Error(`peer authorization stopped at ${url.href} with ${res.status}: ${(await res.text()).slice(0, 200)}`);
  }
}

export interface PeerTarget extends BenchTarget {
  pid: number;
  stop(): Promise<void>;
}

/** Starts the peer on `port`; `mongo` null keeps its artifacts in memory (its default adapter). */
export async function peerTarget(label: string, port: number, scenarios: string[], mongo: { uri: string; database: string } | null): Promise<PeerTarget> {
  const clients = scenarios.map((s) => ({ id: `bench-${s}`, secret: randomBytes(32).toString('base64url'), redirectUri: REDIRECT_URI }));
  const peer = await startPeer({ port, clients, mongo });
  try {
    const endpoints = await discover(peer.issuer);
    const run = Date.now().toString(36);
    let agents: BenchAgent[] = [];
    return {
      label,
      endpoints,
      pid: peer.pid,
      stop: peer.stop,
      client(scenario: string, idTokenAlg: IdTokenAlg) {
        const c = clients.find((x) => x.id === `bench-${scenario}`);
        // The peer signs ID tokens with RS256 only: oidc-provider has no ML-DSA-65.
        if (!c || idTokenAlg !== 'RS256') return Promise.resolve(null);
        return Promise.resolve({ id: c.id, basic: basicAuth(c.id, c.secret) });
      },
      agents(count: number) {
        while (agents.length < count) agents = [...agents, new PeerAgent(peer.issuer, `rp${agents.length}-${run}`)];
        return Promise.resolve(agents.slice(0, count));
      },
    };
  } catch (error) {
    await peer.stop();
    throw error;
  }
}
