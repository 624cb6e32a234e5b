// The production shape is written for users and cannot run here (no Docker
// engine): check that it parses and has what the README promises.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../embedded/servers.js';

const read = (f: string) => fs.readFileSync(path.join(PROJECT_ROOT, f), 'utf8');

describe('docker-compose.yml', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const compose = parse(read('docker-compose.yml'), { merge: true }) as any;

  it('has MongoDB 7, Temporal with its database and UI, and the Keyflow api and worker', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['keyflow-api', 'keyflow-worker', 'mongodb', 'temporal', 'temporal-db', 'temporal-ui']);
    expect(compose.services.mongodb.image).toMatch(/^mongo:7/);
    expect(compose.services['keyflow-api'].command).toEqual(['node', 'dist/api/main.js']);
    expect(compose.services['keyflow-worker'].command).toEqual(['node', 'dist/worker/main.js']);
    for (const s of ['keyflow-api', 'keyflow-worker']) {
      expect(compose.services[s].environment).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233', MONGODB_URI: 'mongodb://mongodb:27017/' });
    }
  });

  it('has health checks', () => {
    for (const s of ['mongodb', 'temporal-db', 'temporal', 'keyflow-api']) expect(compose.services[s].healthcheck.test).toBeDefined();
    expect(compose.services['keyflow-api'].healthcheck.test.join(' ')).toContain('/readyz');
  });

  it('holds no secret: every secret comes from .env, which .env.example documents', () => {
    const example = read('.env.example');
    const text = read('docker-compose.yml');
    for (const [, name] of text.matchAll(/\$\{([A-Z_]+)/g)) expect(example).toMatch(new RegExp(`^${name}=`, 'm'));
    for (const service of Object.values(compose.services) as { environment?: Record<string, string> }[]) {
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
