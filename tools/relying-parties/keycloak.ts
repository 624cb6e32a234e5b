// Keycloak brokering Keyflow as an OpenID Connect identity provider, for
// rp-check: Keycloak's own distribution (keycloak-quarkus-dist from Maven
// Central, fetched once into .tools/), started in development mode on a free
// port with a fresh database, a realm whose identity provider is Keyflow
// (configured from Keyflow's discovery document, PKCE on), set up through
// Keycloak's admin REST API as an operator would in its console.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawnManaged } from '../embedded/process.js';
import { freePort } from '../embedded/ports.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { waitUntilUp } from './keyflow-instance.js';

export const KEYCLOAK_VERSION = '26.7.3';
export const REALM = 'keyflow-broker';
export const IDP_ALIAS = 'keyflow';

export interface RunningKeycloak {
  url: string;
  /** The broker endpoint Keyflow redirects back to: the app's redirect URI. */
  brokerRedirectUri: string;
  /** Makes Keyflow the realm's identity provider, with the app made for it. */
  addKeyflow: (keyflowIssuer: string, client: { id: string; secret: string }) => Promise<void>;
  /** Admin REST API calls on the realm (`path` under /admin/realms/<realm>). */
  admin: (method: string, apiPath: string, body?: unknown) => Promise<unknown>;
  stop: () => Promise<void>;
}

/** A Java new enough for Keycloak 26 (21 or later): KEYCLOAK_JAVA_HOME, else the newest JDK under /usr/lib/jvm. */
function keycloakJavaHome(): string {
  if (process.env.KEYCLOAK_JAVA_HOME) return process.env.KEYCLOAK_JAVA_HOME;
  const jvms = fs.existsSync('/usr/lib/jvm') ? fs.readdirSync('/usr/lib/jvm') : [];
  const candidates = jvms
    .map((name) => ({ name, major: Number(/(?:^|-)(\d{2})(?:[.-]|$)/.exec(name)?.[1] ?? 0) }))
    .filter((j) => j.major >= 21 && fs.existsSync(path.join('/usr/lib/jvm', j.name, 'bin/java')))
    .sort((a, b) => b.major - a.major);
  if (!candidates[0]) throw new Error('Keycloak 26 needs Java 21 or later: install one, or set KEYCLOAK_JAVA_HOME');
  return path.join('/usr/lib/jvm', candidates[0].name);
}

/** The distribution, fetched from Maven Central with Maven and unpacked once into .tools/keycloak-<version>. */
function keycloakHome(say: (line: string) => void): string {
  const home = path.join(PROJECT_ROOT, '.tools', `keycloak-${KEYCLOAK_VERSION}`);
  if (fs.existsSync(path.join(home, 'bin/kc.sh'))) return home;
  const downloads = path.join(PROJECT_ROOT, '.tools', 'downloads');
  fs.mkdirSync(downloads, { recursive: true });
  say(`fetching keycloak-quarkus-dist ${KEYCLOAK_VERSION} from Maven Central (about 200 MB, once)`);
  const artifact = `org.keycloak:keycloak-quarkus-dist:${KEYCLOAK_VERSION}:zip`;
  const got = spawnSync('mvn', ['-q', '-B', 'dependency:copy', `-Dartifact=${artifact}`, `-DoutputDirectory=${downloads}`], { stdio: 'inherit' });
  if (got.status !== 0) throw new Error(`mvn dependency:copy ${artifact} failed`);
  const zip = path.join(downloads, `keycloak-quarkus-dist-${KEYCLOAK_VERSION}.zip`);
  // `jar` (every JDK has it) unpacks the zip; no unzip needed.
  const unpacked = spawnSync('jar', ['xf', zip], { cwd: path.join(PROJECT_ROOT, '.tools'), stdio: 'inherit' });
  if (unpacked.status !== 0 || !fs.existsSync(path.join(home, 'bin/kc.sh'))) throw new Error(`could not unpack ${zip}`);
  return home;
}

export async function startKeycloak(say: (line: string) => void): Promise<RunningKeycloak> {
  const home = keycloakHome(say);
  // A fresh development database each run.
  fs.rmSync(path.join(home, 'data'), { recursive: true, force: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const adminPassword = randomBytes(18).toString('base64url');
  const log = fs.createWriteStream(path.join(PROJECT_ROOT, 'data', 'rp-check-keycloak.log'));
  const proc = spawnManaged('keycloak', 'bash', [path.join(home, 'bin/kc.sh'), 'start-dev', '--http-port', String(port), '--http-host', '127.0.0.1'], {
    env: { ...process.env, JAVA_HOME: keycloakJavaHome(), KC_BOOTSTRAP_ADMIN_USERNAME: 'admin', KC_BOOTSTRAP_ADMIN_PASSWORD: adminPassword },
    output: (line) => log.write(line + '\n'),
  });
  let exited = false;
  void proc.exited.then(() => (exited = true));
  say(`starting Keycloak ${KEYCLOAK_VERSION} (development mode): ${url}`);
  await waitUntilUp(`${url}/realms/master`, 'Keycloak', () => exited, 300_000);

  const token = async () => {
    const res = await fetch(`${url}/realms/master/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username: 'admin', password: adminPassword }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const call = async (method: string, apiPath: string, body?: unknown) => {
    const res = await fetch(`${url}/admin/realms${apiPath}`, {
      method,
      headers: { authorization: `Bearer ${await token()}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`Keycloak ${method} ${apiPath}: ${res.status} ${await res.text()}`);
    const text = await res.text();
    return text ? (JSON.parse(text) as unknown) : null;
  };

  await call('POST', '', { realm: REALM, enabled: true });
  const addKeyflow = async (keyflowIssuer: string, client: { id: string; secret: string }) => {
    // What the console's "Discovery endpoint" field does: the provider's settings from Keyflow's discovery document.
    const discovered = (await call('POST', `/${REALM}/identity-provider/import-config`, {
      providerId: 'oidc',
      fromUrl: `${keyflowIssuer}/.well-known/openid-configuration`,
    })) as Record<string, string>;
    await call('POST', `/${REALM}/identity-provider/instances`, {
      alias: IDP_ALIAS,
      displayName: 'Keyflow',
      providerId: 'oidc',
      enabled: true,
      trustEmail: true,
      config: {
        ...discovered,
        clientId: client.id,
        clientSecret: client.secret,
        clientAuthMethod: 'client_secret_basic',
        defaultScope: 'openid email profile',
        // Keyflow asks every client for PKCE: Keycloak sends it only when told.
        pkceEnabled: 'true',
        pkceMethod: 'S256',
        validateSignature: 'true',
        useJwksUrl: 'true',
        syncMode: 'IMPORT',
      },
    });
  };
  return {
    url,
    brokerRedirectUri: `${url}/realms/${REALM}/broker/${IDP_ALIAS}/endpoint`,
    addKeyflow,
    admin: (method, apiPath, body) => call(method, `/${REALM}${apiPath}`, body),
    stop: () => proc.stop(),
  };
}
