// The production shape (docker-compose.yml, .env.example, the Dockerfile and
// the files under deploy/ they mount) is written for operators and cannot run
// here (no Docker engine): check that it parses and keeps the promises of
// docs/deployment.md — one TLS proxy as the only way in, the client addresses
// it forwards trusted, every setting from .env, health checks, MongoDB with
// authentication as a replica set, Temporal with its schema job, and an image
// that carries the compiled product only, run by a user other than root.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ENV_VARIABLE_NAMES } from '../../../lib/config/env.js';
import { PROJECT_ROOT } from '../../../lib/runtime/paths.js';

const read = (f: string) => fs.readFileSync(path.join(PROJECT_ROOT, f), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  env_file?: unknown;
  ports?: (string | { target: number; published?: string | number; host_ip?: string })[];
  networks?: string[] | Record<string, { ipv4_address?: string } | null>;
  network_mode?: string;
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  restart?: string;
  profiles?: string[];
  volumes?: (string | { type?: string; source?: string; target: string; read_only?: boolean })[];
  user?: string;
}
interface Compose {
  services: Record<string, Service>;
  networks: Record<string, { internal?: boolean; ipam?: { config?: { subnet?: string }[] } } | null>;
  volumes?: Record<string, unknown>;
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as Compose;
const services = compose.services;
const example = read('.env.example');

/** The keys .env.example offers, set or commented out (`KEY=` or `# KEY=`). */
const offered = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
/** The values .env.example sets (uncommented), placeholders for the empty ones. */
const exampleValues: Record<string, string> = Object.fromEntries(
  [...example.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, k, v]) => [k!, v!.trim() || `<${k}>`]),
);

/**
 * Compose's interpolation of one value with `env` (nested defaults included):
 * `${A}`, `${A:-d}`, `${A-d}`, `${A:?msg}`, `${A?msg}`, `$$`. A required
 * variable that `env` lacks resolves to `<A>`.
 */
function interpolate(value: string, env: Record<string, string>): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c !== '$') {
      out += c;
      continue;
    }
    if (value[i + 1] === '$') {
      out += '$';
      i++;
      continue;
    }
    if (value[i + 1] !== '{') {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(value.slice(i + 1));
      if (!m) throw new Error(`bad interpolation in ${value}`);
      out += env[m[0]] ?? '';
      i += m[0].length;
      continue;
    }
    let depth = 0;
    let end = i + 1;
    for (; end < value.length; end++) {
      if (value[end] === '{') depth++;
      else if (value[end] === '}' && --depth === 0) break;
    }
    if (end >= value.length) throw new Error(`unclosed interpolation in ${value}`);
    const body = value.slice(i + 2, end);
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([\s\S]*))?$/.exec(body);
    if (!m) throw new Error(`bad interpolation \${${body}}`);
    const [, name, op, arg] = m;
    const set = env[name!];
    const missing = set === undefined || (op?.startsWith(':') === true && set === '');
    if (!op || !missing) out += set ?? '';
    else if (op.endsWith('-')) out += interpolate(arg!, env);
    else out += `<${name}>`;
    i = end;
  }
  return out;
}

/** A service's environment as a mapping. */
function environmentOf(s: Service): Record<string, string> {
  const env = s.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((e) => [e.split('=')[0]!, e.slice(e.indexOf('=') + 1)]));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}
/** A variable of a service as a fresh deployment gets it: .env.example's values, then the compose file's defaults. */
const resolved = (service: string, name: string) => interpolate(environmentOf(services[service]!)[name] ?? '', exampleValues);
const networksOf = (s: Service): string[] => (Array.isArray(s.networks) ? s.networks : Object.keys(s.networks ?? {}));
const dependsOn = (s: Service): Record<string, { condition?: string }> =>
  Array.isArray(s.depends_on) ? Object.fromEntries(s.depends_on.map((d) => [d, {}])) : (s.depends_on ?? {});
const words = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(' ') : (v ?? ''));
/** What a service runs: its command and entrypoint, and the scripts from deploy/ it mounts. */
function scriptOf(s: Service): string {
  const mounted = (s.volumes ?? [])
    .map((v) => (typeof v === 'string' ? v.split(':')[0]! : (v.source ?? '')))
    .filter((src) => src.startsWith('./deploy/') && fs.statSync(path.join(PROJECT_ROOT, src)).isFile())
    .map((src) => read(src));
  return [words(s.entrypoint), words(s.command), ...mounted].join('\n');
}
/** host_ip, published and target of a published port, short or long syntax. */
function portOf(p: NonNullable<Service['ports']>[number]): { hostIp: string; published: string; target: number } {
  if (typeof p !== 'string') return { hostIp: p.host_ip ?? '0.0.0.0', published: String(p.published ?? ''), target: p.target };
  const parts = interpolate(p, exampleValues)
    .replace(/\/(tcp|udp)$/, '')
    .split(':');
  const target = Number(parts.pop());
  const published = parts.pop() ?? '';
  return { hostIp: parts.join(':').replace(/^\[|\]$/g, '') || '0.0.0.0', published, target };
}
const LOOPBACK = ['127.0.0.1', '::1'];

const PROXY = 'proxy';
const proxy = services[PROXY]!;
const api = services['keyflow-api']!;
const worker = services['keyflow-worker']!;
const KEYFLOW = ['keyflow-api', 'keyflow-worker'];

describe('docker-compose.yml: the way in', () => {
  it('has MongoDB 7, Temporal with its database, schema job and UI, the TLS proxy, and the Keyflow api and worker', () => {
    for (const s of [PROXY, 'mongodb', 'temporal-db', 'temporal', 'temporal-ui', 'keyflow-api', 'keyflow-worker'])
      expect([s, services[s]?.profiles]).toEqual([s, undefined]);
    expect(services.mongodb!.image).toMatch(/^mongo:7/);
    expect(proxy.image).toMatch(/^caddy:2/);
    expect(api.command).toEqual(['node', 'dist/api/main.js']);
    expect(worker.command).toEqual(['node', 'dist/worker/main.js']);
  });

  it('publishes no plain-HTTP port on a public interface: only the proxy, on 443 (and 80 to redirect), and UIs on loopback; the api none', () => {
    const published = Object.entries(services).flatMap(([name, s]) => (s.ports ?? []).map((p) => ({ name, ...portOf(p) })));
    for (const p of published.filter((p) => !LOOPBACK.includes(p.hostIp))) expect([p.name, [443, 80].includes(p.target)]).toEqual([PROXY, true]);
    expect(published.filter((p) => p.name === PROXY).map((p) => p.target)).toContain(443);
    expect(api.ports).toBeUndefined();
    expect(worker.ports).toBeUndefined();
    // Port 80 answers nothing but a redirect to https.
    const caddyfile = read('deploy/caddy/Caddyfile');
    const plainHttp = /^(?:http:\/\/)?:80 \{([\s\S]*?)^\}/m.exec(caddyfile);
    if (published.some((p) => p.name === PROXY && p.target === 80)) {
      expect(plainHttp?.[1]?.trim()).toMatch(/^redir https:\/\/\S+ 30[18]$/);
    }
  });

  it("proxies to the api over TLS with the operator's certificate, forwarding the client address and scheme", () => {
    const caddyfile = read('deploy/caddy/Caddyfile');
    expect(caddyfile).toMatch(/^\s*reverse_proxy keyflow-api:3000\b/m);
    const tls = /^\s*tls (\S+) (\S+)(?: \{)?$/m.exec(caddyfile);
    expect(tls).not.toBeNull();
    // Both files are mounted, from the paths .env names, read-only.
    for (const file of [tls![1]!, tls![2]!]) {
      const mount = (proxy.volumes ?? []).find((v) => typeof v === 'string' && v.includes(`}:${file}:`)) as string | undefined;
      expect([file, mount]).toEqual([file, expect.stringMatching(/^\$\{TLS_(CERT|KEY)_FILE:-\.\/deploy\/tls\/[^}]+\}:\S+:ro$/)]);
    }
    expect(caddyfile).toMatch(/protocols tls1\.2 tls1\.3/);
    // Caddy sets X-Forwarded-For (the connecting client: it trusts no proxy in front
    // of it unless told) and X-Forwarded-Proto itself; nothing here may drop them.
    expect(caddyfile).not.toMatch(/^\s*header_up -X-Forwarded-(For|Proto)/m);
    expect(caddyfile).not.toMatch(/^\s*trusted_proxies\b/m);
  });

  it("trusts X-Forwarded-For from the proxy's fixed address alone, on the one network it shares with the api", () => {
    const shared = networksOf(proxy).filter((n) => networksOf(api).includes(n));
    expect(shared).toHaveLength(1);
    const edge = shared[0]!;
    const address = (proxy.networks as Record<string, { ipv4_address?: string } | null>)[edge]?.ipv4_address;
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const subnet = compose.networks[edge]?.ipam?.config?.[0]?.subnet;
    expect(subnet).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
    const [base, bits] = subnet!.split('/');
    const toInt = (ip: string) => ip.split('.').reduce((n, b) => n * 256 + Number(b), 0);
    const size = 2 ** (32 - Number(bits));
    expect(Math.floor(toInt(address!) / size)).toBe(Math.floor(toInt(base!) / size));
    expect(resolved('keyflow-api', 'TRUSTED_PROXIES')).toBe(address);
    // The only other way to the api is for the services on backend/metrics, which send it no request.
    expect(compose.networks[edge]?.internal).toBe(true);
    expect(
      networksOf(proxy)
        .filter((n) => n !== edge)
        .every((n) => !networksOf(api).includes(n)),
    ).toBe(true);
  });

  it('keeps Temporal, its database and MongoDB on internal networks, and the Temporal UI read-only', () => {
    const internal = Object.entries(compose.networks)
      .filter(([, n]) => n?.internal === true)
      .map(([name]) => name);
    for (const s of ['temporal', 'temporal-db', 'mongodb']) {
      expect([s, services[s]!.ports]).toEqual([s, undefined]);
      expect([s, networksOf(services[s]!).every((n) => internal.includes(n))]).toEqual([s, true]);
    }
    for (const s of ['keyflow-api', 'keyflow-worker', 'temporal-ui'])
      expect(networksOf(services[s]!).some((n) => networksOf(services.temporal!).includes(n))).toBe(true);
    expect(environmentOf(services['temporal-ui']!).TEMPORAL_DISABLE_WRITE_ACTIONS).toBe('true');
  });
});

describe('docker-compose.yml: settings', () => {
  it('hard-codes no key that .env.example offers: each is a ${KEY…} interpolation of its own name', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [key, value] of Object.entries(environmentOf(s))) {
        if (offered.has(key)) expect([name, key, value]).toEqual([name, key, expect.stringMatching(new RegExp(`^\\$\\{${key}(\\}|:?[-?])`))]);
      }
    }
  });

  it("hard-codes none of Keyflow's own variables but those the topology fixes", () => {
    // The api's listener (the proxy's upstream and the probes), and the listeners prometheus.yml and the worker's probe use.
    const FIXED = ['BIND_ADDRESS', 'PORT', 'TRUSTED_PROXIES', 'METRICS_ADDR', 'WORKER_METRICS_ADDR', 'WORKER_HEALTH_ADDR'];
    for (const s of KEYFLOW) {
      for (const [key, value] of Object.entries(environmentOf(services[s]!))) {
        if (ENV_VARIABLE_NAMES.includes(key) && !FIXED.includes(key)) {
          expect([s, key, value]).toEqual([s, key, expect.stringMatching(new RegExp(`^\\$\\{${key}(\\}|:?[-?])`))]);
        }
      }
    }
  });

  it('passes every Keyflow variable from .env to the api and the worker, and nothing else of .env', () => {
    // The embedded servers' settings mean nothing here, and each process has its own listeners; the rest reach both.
    const notPassed: Record<string, string[]> = {
      'keyflow-api': ['WORKER_METRICS_ADDR', 'WORKER_HEALTH_ADDR'],
      'keyflow-worker': ['METRICS_ADDR'],
    };
    const embeddedOnly = ['TEMPORAL_PORT', 'TEMPORAL_UI_PORT', 'MONGODB_PORT', 'DATA_DIR'];
    for (const s of KEYFLOW) {
      const env = environmentOf(services[s]!);
      const expected = ENV_VARIABLE_NAMES.filter((n) => !embeddedOnly.includes(n));
      for (const name of expected) expect([s, name, name in env]).toEqual([s, name, !notPassed[s]!.includes(name)]);
      // No env_file: the databases' root passwords stay out of Keyflow's containers.
      expect([s, services[s]!.env_file]).toEqual([s, undefined]);
      for (const value of Object.values(env)) expect(value).not.toMatch(/MONGO_ROOT_PASSWORD|TEMPORAL_DB_PASSWORD/);
    }
  });

  it('documents in .env.example every variable it reads, the required ones set (to a placeholder), and offers none it fixes', () => {
    const text = read('docker-compose.yml');
    for (const [, name, op] of text.matchAll(/\$\{([A-Z][A-Z0-9_]*)(:?[-?])?/g)) {
      expect([name, offered.has(name!)]).toEqual([name, true]);
      if (op?.endsWith('?')) expect(example).toMatch(new RegExp(`^${name}=`, 'm'));
    }
    // Fixed by the topology (the proxy's upstream and address, the probes, prometheus.yml): not offered.
    for (const fixed of ['BIND_ADDRESS', 'PORT', 'TRUSTED_PROXIES', 'METRICS_ADDR', 'WORKER_METRICS_ADDR', 'WORKER_HEALTH_ADDR', 'DATA_DIR'])
      expect([fixed, offered.has(fixed)]).toEqual([fixed, false]);
    expect(environmentOf(api).BIND_ADDRESS).toBe('0.0.0.0');
    expect(environmentOf(api).PORT).toBe('3000');
    // No secret in .env.example: every password, key and KEK is empty or a placeholder.
    for (const [, key, value] of example.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=(.*)$/gm)) {
      if (/PASSWORD(?!_HASH_COST)|PWD|SECRET|KEK|API_KEY/.test(key!))
        expect([key, value]).toEqual([key, expect.stringMatching(/^(|<[^>]*>|change-me[\w-]*)$/)]);
    }
    expect(exampleValues.ISSUER).toMatch(/^https:\/\//);
    // TRUSTED_PROXIES is explained there, though fixed here.
    expect(example).toMatch(/^#.*\bTRUSTED_PROXIES\b/m);
  });

  it('shows how to reach a Temporal elsewhere, with mTLS or an API key', () => {
    for (const name of ['TEMPORAL_ADDRESS', 'TEMPORAL_TLS_CA', 'TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_SERVER_NAME', 'TEMPORAL_API_KEY']) {
      expect(example).toMatch(new RegExp(`^# ${name}=`, 'm'));
    }
    expect(example).toMatch(/^# OUTBOUND_ALLOWLIST=webhooks=[a-z.-]+:\d+$/m);
  });

  it('serves metrics to the optional Prometheus only, on the ports prometheus.yml scrapes', () => {
    const prometheus = services.prometheus!;
    const scrape = parse(read('deploy/prometheus/prometheus.yml')) as {
      rule_files: string[];
      scrape_configs: { job_name: string; dns_sd_configs: { names: string[]; port: number }[] }[];
    };
    const portOf = (service: string) => scrape.scrape_configs.find((c) => c.dns_sd_configs[0]!.names.includes(service))?.dns_sd_configs[0]!.port;
    expect(environmentOf(api).METRICS_ADDR).toBe(`0.0.0.0:${portOf('keyflow-api')}`);
    expect(environmentOf(worker).WORKER_METRICS_ADDR).toBe(`0.0.0.0:${portOf('keyflow-worker')}`);
    // The shared settings are still there (the services extend them, not replace them).
    for (const s of KEYFLOW) expect(resolved(s, 'MONGODB_URI')).toMatch(/^mongodb:\/\//);
    expect(prometheus.profiles).toEqual(['observability']);
    expect(prometheus.volumes).toContain('./deploy/prometheus:/etc/prometheus:ro');
    expect(scrape.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
    const shared = networksOf(prometheus).filter((n) => networksOf(api).includes(n) && networksOf(worker).includes(n));
    expect(shared.some((n) => compose.networks[n]?.internal === true)).toBe(true);
    for (const s of ['prometheus', 'grafana']) expect([s, services[s]!.profiles]).toEqual([s, ['observability']]);
  });
});

describe('docker-compose.yml: health and order', () => {
  it('gives every service a health check, or makes it a one-shot job that the others wait for', () => {
    for (const [name, s] of Object.entries(services)) {
      if (s.restart === 'no') {
        const waiters = Object.values(services).filter((o) => dependsOn(o)[name]?.condition === 'service_completed_successfully');
        expect([name, waiters.length > 0]).toEqual([name, true]);
      } else {
        expect([name, s.healthcheck?.disable]).toEqual([name, undefined]);
        expect([name, words(s.healthcheck?.test)]).toEqual([name, expect.stringMatching(/^(CMD|CMD-SHELL) /)]);
      }
    }
  });

  it('starts each service after what it needs, with a condition', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [dep, { condition }] of Object.entries(dependsOn(s))) {
        expect([name, dep, condition]).toEqual([name, dep, expect.stringMatching(/^service_(healthy|completed_successfully)$/)]);
        if (condition === 'service_healthy') expect([dep, services[dep]!.healthcheck?.test]).toEqual([dep, expect.anything()]);
        else expect([dep, services[dep]!.restart]).toEqual([dep, 'no']);
      }
    }
    expect(dependsOn(proxy)['keyflow-api']?.condition).toBe('service_healthy');
    for (const s of KEYFLOW) expect([s, dependsOn(services[s]!).mongodb?.condition]).toEqual([s, 'service_healthy']);
  });

  it("probes the api's and the worker's /readyz", () => {
    expect(words(api.healthcheck?.test)).toContain('http://127.0.0.1:3000/readyz');
    // The worker answers its probes on WORKER_HEALTH_ADDR, in its container only.
    const health = environmentOf(worker).WORKER_HEALTH_ADDR;
    expect(health).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(words(worker.healthcheck?.test)).toContain(`http://${health}/readyz`);
  });
});

describe('docker-compose.yml: MongoDB', () => {
  const mongodb = services.mongodb!;
  const command = Array.isArray(mongodb.command) ? mongodb.command : words(mongodb.command).split(/\s+/);
  const arg = (flag: string) => command[command.indexOf(flag) + 1];

  it('runs with authentication, as a single-node replica set whose members authenticate with a keyfile', () => {
    expect(command).toContain('--replSet');
    expect(command).toContain('--keyFile');
    const env = environmentOf(mongodb);
    expect(env.MONGO_INITDB_ROOT_USERNAME).toMatch(/^\$\{/);
    expect(env.MONGO_INITDB_ROOT_PASSWORD).toMatch(/^\$\{MONGO_ROOT_PASSWORD:\?/);
    // The keyfile lies on a volume that a one-shot job fills before mongod starts.
    const keyFile = interpolate(arg('--keyFile')!, exampleValues);
    const volumeOf = (s: Service) =>
      (s.volumes ?? []).filter((v): v is string => typeof v === 'string').find((v) => keyFile.startsWith(v.split(':')[1]! + '/'));
    const volume = volumeOf(mongodb)?.split(':')[0];
    expect(volume).toBeDefined();
    const [job] = Object.entries(dependsOn(mongodb)).filter(
      ([dep, d]) =>
        d.condition === 'service_completed_successfully' && (services[dep]!.volumes ?? []).some((v) => typeof v === 'string' && v.startsWith(`${volume}:`)),
    );
    expect(job).toBeDefined();
    expect(scriptOf(services[job![0]]!)).toMatch(/chmod 400/);
    // The health check starts the replica set the first time and is healthy once it has a primary.
    const probe = scriptOf(mongodb) + words(mongodb.healthcheck?.test);
    expect(probe).toMatch(/rs\.initiate\(/);
    expect(probe).toMatch(/isWritablePrimary/);
  });

  it('gives Keyflow a connection string with credentials, authSource and the replica set', () => {
    for (const s of KEYFLOW) {
      expect(environmentOf(services[s]!).MONGODB_URI).toMatch(/^\$\{MONGODB_URI:-/);
      const uri = new URL(resolved(s, 'MONGODB_URI'));
      expect([s, uri.username.length > 0, uri.password.length > 0]).toEqual([s, true, true]);
      expect(uri.searchParams.get('authSource')).toBeTruthy();
      expect(uri.searchParams.get('replicaSet')).toBe(interpolate(arg('--replSet')!, exampleValues));
    }
  });
});

describe('docker-compose.yml: Temporal', () => {
  it('runs temporalio/server (not auto-setup) after a one-shot job has set up both schemas', () => {
    for (const [name, s] of Object.entries(services)) expect([name, s.image ?? '']).toEqual([name, expect.not.stringMatching(/auto-setup/)]);
    const temporal = services.temporal!;
    expect(temporal.image).toMatch(/^temporalio\/server:\d/);
    const jobs = Object.entries(dependsOn(temporal)).filter(([, d]) => d.condition === 'service_completed_successfully');
    expect(jobs).toHaveLength(1);
    const schema = services[jobs[0]![0]]!;
    expect(schema.image).toMatch(/^temporalio\/admin-tools:\d/);
    const script = scriptOf(schema);
    expect(script).toMatch(/temporal-sql-tool --plugin postgres12\b/);
    expect(script).toMatch(/schemas=\/etc\/temporal\/schema\/postgresql\/v12\n/);
    for (const [db, store] of [
      ['temporal', 'temporal'],
      ['temporal_visibility', 'visibility'],
    ]) {
      expect(script).toMatch(new RegExp(`--db ${db} setup-schema -v 0\\.0\n`));
      expect(script).toMatch(new RegExp(`--db ${db} update-schema -d "\\$schemas/${store}/versioned"\n`));
    }
  });

  it("creates Keyflow's namespace before the api and the worker start", () => {
    const [name] = Object.entries(services).find(([, s]) => s.restart === 'no' && /temporal operator namespace create/.test(scriptOf(s))) ?? [];
    expect(name).toBeDefined();
    for (const s of KEYFLOW) expect([s, dependsOn(services[s]!)[name!]?.condition]).toEqual([s, 'service_completed_successfully']);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const stages = dockerfile.split(/^(?=FROM )/m).filter((s) => s.startsWith('FROM '));
  const runtime = stages.at(-1)!;

  it('builds in one stage and runs the compiled product in another, on the pinned Node 24', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const pinned = (JSON.parse(read('package.json')) as { devDependencies: Record<string, string> }).devDependencies.node;
    for (const stage of stages) expect(stage).toMatch(new RegExp(`^FROM node:${pinned!.replace(/\./g, '\\.')}-bookworm-slim\\b`));
    expect(runtime).toMatch(/^RUN npm ci --omit=dev\b/m);
    expect(runtime).toMatch(/^ENV NODE_ENV=production\b/m);
    expect(runtime).toMatch(/^CMD \["node", "dist\/api\/main.js"\]$/m);
  });

  it('copies no test or tools folder into the runtime stage, and all the processes need', () => {
    const copies = [...runtime.matchAll(/^COPY (.+)$/gm)].map((m) => m[1]!.split(/\s+/).filter((w) => !w.startsWith('--')));
    const sources = copies.flatMap((c) => c.slice(0, -1));
    for (const s of sources) expect(s).not.toMatch(/(^|\/)(test|tools)(\/|$)|^\/app\/dist\/?$|^dist\/?$|^\.$/);
    for (const needed of ['dist/api', 'dist/worker', 'dist/cli', 'dist/lib', 'dist/activities', 'dist/workflows', 'bin', 'api/assets', 'package.json']) {
      expect([needed, sources.some((s) => s.replace(/^\/app\//, '') === needed)]).toEqual([needed, true]);
    }
  });

  it('ends as a user other than root', () => {
    const users = [...runtime.matchAll(/^USER (\S+)$/gm)].map((m) => m[1]);
    expect(users.at(-1)).toBeDefined();
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
  });

  it('leaves .env, the TLS keys, build output and the toolchain out of the build context', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const p of ['.env', 'deploy/tls', 'node_modules', 'dist', '.tools', '.git']) expect([p, ignored.includes(p)]).toEqual([p, true]);
  });

  it("needs nothing outside the folders and packages it copies: the processes' imports stay in them", () => {
    const COPIED = ['api', 'cli', 'worker', 'workflows', 'activities', 'lib'];
    const IMPORT = /^\s*(?:import|export)\s[^'";]*?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm;
    const seen = new Set<string>();
    const queue = ['api/main.ts', 'worker/main.ts', 'cli/keyflow.ts', 'workflows/index.ts'].map((f) => path.join(PROJECT_ROOT, f));
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const folder = path.relative(PROJECT_ROOT, file).split(path.sep)[0]!;
      expect([path.relative(PROJECT_ROOT, file), COPIED.includes(folder)]).toEqual([path.relative(PROJECT_ROOT, file), true]);
      for (const m of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const target = path.resolve(path.dirname(file), (m[1] ?? m[2])!).replace(/\.js$/, '.ts');
        if (fs.existsSync(target)) queue.push(target);
      }
    }
    expect(seen.size).toBeGreaterThan(50);
    // And the packages they import are production dependencies: the runtime stage installs no others.
    const { dependencies } = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    const PACKAGE = /\bfrom\s+['"]([^'"./][^'"]*)['"]|^\s*import\s+['"]([^'"./][^'"]*)['"]|\bimport\(\s*['"]([^'"./][^'"]*)['"]\s*\)/gm;
    for (const file of seen) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(PACKAGE)) {
        const specifier = (m[1] ?? m[2] ?? m[3])!;
        if (specifier.startsWith('node:') || !/^(@[a-z0-9-]+\/)?[a-z0-9][a-z0-9._-]*(\/\S*)?$/.test(specifier)) continue;
        const name = specifier
          .split('/')
          .slice(0, specifier.startsWith('@') ? 2 : 1)
          .join('/');
        expect([path.relative(PROJECT_ROOT, file), name, name in dependencies]).toEqual([path.relative(PROJECT_ROOT, file), name, true]);
      }
    }
  });
});
