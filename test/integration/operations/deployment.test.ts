// The production shape is written for users and cannot run here (no Docker
// engine): check that it parses and has what docs/deployment.md promises.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../../lib/runtime/paths.js';

const read = (f: string) => fs.readFileSync(path.join(PROJECT_ROOT, f), 'utf8');

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true });

  it('has MongoDB 7, Temporal with its database and UI, and the Keyflow api and worker', () => {
    const byDefault = Object.keys(compose.services).filter((s) => !compose.services[s].profiles);
    expect(byDefault.sort()).toEqual(['keyflow-api', 'keyflow-worker', 'mongodb', 'temporal', 'temporal-db', 'temporal-ui']);
    expect(compose.services.mongodb.image).toMatch(/^mongo:7/);
    expect(compose.services['keyflow-api'].command).toEqual(['node', 'dist/api/main.js']);
    expect(compose.services['keyflow-worker'].command).toEqual(['node', 'dist/worker/main.js']);
    for (const s of ['keyflow-api', 'keyflow-worker']) {
      expect(compose.services[s].environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233', MONGODB_URI: 'mongodb://mongodb:27017/' });
    }
  });

  it('has health checks', () => {
    for (const s of ['mongodb', 'temporal-db', 'temporal', 'keyflow-api', 'keyflow-worker']) expect(compose.services[s].healthcheck.test).toBeDefined();
    expect(compose.services['keyflow-api'].healthcheck.test.join(' ')).toContain('/readyz');
    // The worker answers its probes on WORKER_HEALTH_ADDR, in its container only.
    const worker = compose.services['keyflow-worker'];
    expect(worker.environment.WORKER_HEALTH_ADDR).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(worker.healthcheck.test.join(' ')).toContain(`http://${worker.environment.WORKER_HEALTH_ADDR}/readyz`);
  });

  it('serves metrics to the optional Prometheus only, on the ports prometheus.yml scrapes', () => {
    const api = compose.services['keyflow-api'];
    const worker = compose.services['keyflow-worker'];
    const prometheus = compose.services.prometheus;
    const scrape = parse(read('deploy/prometheus/prometheus.yml')) as {
      rule_files: string[];
      scrape_configs: { job_name: string; dns_sd_configs: { names: string[]; port: number }[] }[];
    };
    const portOf = (service: string) => scrape.scrape_configs.find((c) => c.dns_sd_configs[0]!.names.includes(service))?.dns_sd_configs[0]!.port;
    expect(api.environment.METRICS_ADDR).toBe(`0.0.0.0:${portOf('keyflow-api')}`);
    expect(worker.environment.WORKER_METRICS_ADDR).toBe(`0.0.0.0:${portOf('keyflow-worker')}`);
    // The shared settings are still there (the services extend them, not replace them).
    for (const s of [api, worker]) expect(s.environment.MONGODB_URI).toBe('mongodb://mongodb:27017/');
    // No metrics port on the host: the api publishes its own port alone.
    expect(api.ports).toEqual(['3000:3000']);
    expect(worker.ports).toBeUndefined();
    // Prometheus: started on demand, with the rules, sharing an internal network with the targets.
    expect(prometheus.profiles).toEqual(['observability']);
    expect(prometheus.volumes).toContain('./deploy/prometheus:/etc/prometheus:ro');
    expect(scrape.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
    const shared = prometheus.networks.filter((n: string) => api.networks.includes(n) && worker.networks.includes(n));
    expect(shared.some((n: string) => compose.networks[n]?.internal === true)).toBe(true);
    for (const s of ['prometheus', 'grafana']) {
      expect([s, compose.services[s].profiles]).toEqual([s, ['observability']]);
      expect([s, compose.services[s].ports.every((p: string) => p.startsWith('127.0.0.1:'))]).toEqual([s, true]);
    }
  });

  it('keeps Temporal, its database and MongoDB on an internal network, and the Temporal UI read-only on loopback', () => {
    const internal = Object.entries(compose.networks as Record<string, { internal?: boolean } | null>)
      .filter(([, n]) => n?.internal === true)
      .map(([name]) => name);
    expect(internal.length).toBeGreaterThan(0);
    for (const s of ['temporal', 'temporal-db', 'mongodb']) {
      expect([s, compose.services[s].ports]).toEqual([s, undefined]);
      expect([s, compose.services[s].networks.every((n: string) => internal.includes(n))]).toEqual([s, true]);
    }
    // Everything that talks to Temporal shares one of those networks with it.
    for (const s of ['keyflow-api', 'keyflow-worker', 'temporal-ui'])
      expect(compose.services[s].networks.some((n: string) => compose.services.temporal.networks.includes(n))).toBe(true);
    const ui = compose.services['temporal-ui'];
    expect(ui.environment.TEMPORAL_DISABLE_WRITE_ACTIONS).toBe('true');
    expect(ui.ports.every((p: string) => p.startsWith('127.0.0.1:'))).toBe(true);
  });

  it('shows how to connect to a Temporal with mTLS or an API key', () => {
    const text = read('docker-compose.yml');
    const example = read('.env.example');
    for (const name of ['TEMPORAL_TLS_CA', 'TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_SERVER_NAME']) {
      expect(text).toMatch(new RegExp(`^\\s*# ${name}: \\S`, 'm'));
      expect(example).toMatch(new RegExp(`^# ${name}=`, 'm'));
    }
    expect(example).toMatch(/^# TEMPORAL_API_KEY=$/m);
    expect(example).toMatch(/^# OUTBOUND_ALLOWLIST=webhooks=[a-z.-]+:\d+$/m);
  });

  it('holds no secret: every secret comes from .env, which .env.example documents', () => {
    const example = read('.env.example');
    const text = read('docker-compose.yml');
    for (const [, name] of text.matchAll(/\$\{([A-Z_]+)/g)) expect(example).toMatch(new RegExp(`^${name}=`, 'm'));
    for (const service of Object.values<{ environment?: Record<string, string> }>(compose.services)) {
      for (const [k, v] of Object.entries(service.environment ?? {})) {
        if (/PASSWORD|PWD|SECRET|KEK/.test(k)) expect(String(v)).toMatch(/^\$\{/);
      }
    }
  });
});

describe('Dockerfile', () => {
  it('builds on Node 24 and runs as a non-root user', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^FROM node:24-/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/api\/main.js"\]$/m);
  });
});
