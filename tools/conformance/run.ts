// `npm run conformance -- [plan…] [--keep] [--no-docs]`: the OpenID
// Foundation conformance suite against this checkout. The kit (kit.ts) builds
// the suite once and runs it behind nginx with TLS; this script starts a
// Keyflow of its own for it (data in data/conformance, new each run, with
// ML-DSA-65 withheld so the suite's unpatched JWKS check can read the JWKS),
// makes the test user and each plan's clients through the CLI, runs the plans
// (every default plan without arguments), prints each plan's modules, and
// writes the results into docs/conformance.md. Exit 1 when a module FAILED.
// Plans that need Keyflow with other settings (FAPI 2.0: plans.ts) run with a
// Keyflow, and a suite (its database is that Keyflow's), of their own.
import { spawn, spawnSync } from 'node:child_process';
import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnManaged, type ManagedProcess } from '../embedded/process.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';
import { startTlsFront, type TlsFront } from './tls-front.js';
import { findKit, interruptKitCommands, keyflowEnv, kitCommand, type Kit } from './kit.js';
import { DEFAULT_PLANS, planName, plansNamed, variantOf, type ConfigKind, type KeyflowProfile, type PlanRun } from './plans.js';
import { failed, markdown, readSummary, totals, writeDocs, type ModuleResult, type PlanResult } from './report.js';
import { suiteConfig, type SuiteClient } from './suite-config.js';
import { fapiSuiteConfig } from './fapi-config.js';
import { fapiClients } from './fapi-clients.js';

const say = (line: string) => process.stderr.write(`[conformance] ${line}\n`);
const ALIAS = 'keyflow';
const USER_EMAIL = 'oidf.tester@example.com';
/** What the plans ask for; only those Keyflow lists in scopes_supported are given to clients. */
const WANTED_SCOPES = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'];
/**
 * The Keyflow settings the runs are made with, beside the kit's (issuer,
 * ports, proxies): named in the results. ML-DSA-65 withheld (the suite's JOSE
 * library refuses a JWKS with an AKP key); the scopes' claims at UserInfo only
 * (OIDC Core §5.4); dynamically registered clients without PKCE unless they
 * ask (the OIDCC modules send none); client assertions whose audience is the
 * token endpoint (what the suite's private_key_jwt clients send).
 */
const KEYFLOW_SETTINGS = {
  ML_DSA_SIGNING: 'off',
  ID_TOKEN_CLAIMS: 'requested',
  REGISTRATION_REQUIRE_PKCE: 'false',
  CLIENT_ASSERTION_AUDIENCE: 'issuer-or-token-endpoint',
  DATA_DIR: path.join('data', 'conformance'),
};
/**
 * The FAPI 2.0 plans' Keyflow: the same, but client assertions name the issuer
 * alone (Keyflow's default), as FAPI 2.0 requires: its plans send the token
 * and PAR endpoints' URLs as audience and expect invalid_client.
 */
const SETTINGS: Record<KeyflowProfile, typeof KEYFLOW_SETTINGS> = {
  oidc: KEYFLOW_SETTINGS,
  fapi: { ...KEYFLOW_SETTINGS, CLIENT_ASSERTION_AUDIENCE: 'issuer' },
};
/** A profile with every standard claim, so that the scope modules find each (the suite checks every one). */
const PROFILE = {
  given_name: 'Oidf',
  family_name: 'Tester',
  middle_name: 'Conformance',
  nickname: 'oidf',
  profile: 'https://example.com/oidf-tester',
  picture: 'https://example.com/oidf-tester.png',
  website: 'https://example.com',
  gender: 'unspecified',
  birthdate: '2000-01-01',
  zoneinfo: 'Europe/Paris',
  locale: 'en-US',
  phone_number: '+33 1 23 45 67 89',
  address: { street_address: '1 Conformance Way', locality: 'Paris', postal_code: '75001', country: 'FR', formatted: '1 Conformance Way\n75001 Paris\nFrance' },
};

interface Keyflow {
  env: NodeJS.ProcessEnv;
  issuer: string;
  process: ManagedProcess;
  /** The FAPI plans' own TLS front (tls-front.ts), stopped with Keyflow. */
  front?: TlsFront;
}

/** Where the FAPI plans' TLS front listens (the kit's nginx fronts the OIDC plans' Keyflow). */
const FAPI_TLS_PORT = Number(process.env.OIDF_FAPI_TLS_PORT ?? '3845');

/** A Keyflow CLI command on the conformance Keyflow's database; its JSON output. */
function cli(env: NodeJS.ProcessEnv, args: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', path.join(PROJECT_ROOT, 'dist', 'cli', 'keyflow.js'), ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out.trim() ? JSON.parse(out) : null) : reject(new Error(`keyflow ${args[0]} ${args[1]}: ${err.trim()}`)),
    );
  });
}

async function waitFor(url: string, what: string, proc: ManagedProcess, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  for (;;) {
    if (exited) throw new Error(`${what} exited before it was ready`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(5_000) })).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${what} did not answer ${url} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

async function startKeyflow(kit: Kit, settings: typeof KEYFLOW_SETTINGS, ownTlsFront: boolean): Promise<Keyflow> {
  const kitEnv = await keyflowEnv(kit);
  // FAPI 2.0 checks the TLS front's cipher suites: this Keyflow is reached through one of the runner's own.
  if (ownTlsFront) kitEnv.ISSUER = `https://${new URL(kitEnv.ISSUER!).hostname}:${FAPI_TLS_PORT}`;
  // The suite serves the jwks_uri and request_uri of the clients it registers, as it receives back-channel logout tokens.
  const suiteHost = `${new URL(kitEnv.ISSUER!).hostname}:${process.env.OIDF_HTTPS_PORT ?? '8443'}`;
  const outbound = [kitEnv.OUTBOUND_ALLOWLIST, `jwks_uri=${suiteHost}`, `request_uri=${suiteHost}`].filter(Boolean).join(',');
  const env: NodeJS.ProcessEnv = { ...process.env, ...kitEnv, OUTBOUND_ALLOWLIST: outbound, ...settings };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const dataDir = path.join(PROJECT_ROOT, settings.DATA_DIR);
  fs.rmSync(dataDir, { recursive: true, force: true });
  // A clean clone has no data/ yet: the log beside the data folder needs its parent.
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  say(
    `starting Keyflow for the suite: ${env.ISSUER} (${Object.entries(settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')})`,
  );
  const log = fs.createWriteStream(dataDir + '.log');
  const proc = spawnManaged('keyflow', process.execPath, [path.join(PROJECT_ROOT, 'dist', 'tools', 'scripts', 'launcher.js')], {
    env,
    output: (line) => log.write(line + '\n'),
  });
  await waitFor(`http://127.0.0.1:${env.PORT}/readyz`, 'Keyflow', proc);
  const front = ownTlsFront ? await startTlsFront(path.dirname(env.NODE_EXTRA_CA_CERTS!), FAPI_TLS_PORT, Number(env.PORT)) : undefined;
  if (front) say(`TLS front (TLS 1.2 with the BCP 195 suites only, TLS 1.3): ${env.ISSUER} -> 127.0.0.1:${env.PORT}`);
  return { env, issuer: env.ISSUER!, process: proc, front };
}

/**
 * The test user, with a random password for this run and every standard
 * claim: made with the CLI, the profile set as the user would set it
 * (PATCH /api/oauth/me/profile, with a token the CLI makes for them).
 */
async function provisionUser(kf: Keyflow): Promise<{ email: string; password: string }> {
  const password = `Oidf-${randomBytes(12).toString('hex')}`;
  await cli(kf.env, ['users', 'create', '--email', USER_EMAIL, '--password', password, '--name', 'OIDF Tester', '--username', 'oidftester']);
  const { token } = (await cli(kf.env, [
    'tokens',
    'create',
    '--user',
    USER_EMAIL,
    '--name',
    'conformance profile',
    '--scope',
    'profile:write',
    '--expires-in-days',
    '1',
  ])) as {
    token: string;
  };
  const res = await fetch(`http://127.0.0.1:${kf.env.PORT}/api/oauth/me/profile`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(PROFILE),
  });
  if (!res.ok) throw new Error(`the test user's profile was refused: ${res.status} ${await res.text()}`);
  return { email: USER_EMAIL, password };
}

async function scopesFor(kf: Keyflow, wanted: readonly string[] = WANTED_SCOPES): Promise<string> {
  const discovery = (await (await fetch(`http://127.0.0.1:${kf.env.PORT}/.well-known/openid-configuration`)).json()) as { scopes_supported: string[] };
  return wanted.filter((s) => discovery.scopes_supported.includes(s)).join(' ');
}

/** The suite's base for this alias: the callback and the other URIs the clients register are under it. */
const suiteBase = (kf: Keyflow) => `https://${new URL(kf.issuer).hostname}:${process.env.OIDF_HTTPS_PORT ?? '8443'}/test/a/${ALIAS}`;

/**
 * A FAPI 2.0 plan's configuration: two clients of its own (fapi-clients.ts)
 * and the resource the suite calls with their access tokens. With OpenID
 * Connect, UserInfo; plain OAuth tokens carry no `openid`, which UserInfo
 * requires, so they call another resource of Keyflow's API: the user's GPG
 * keys (`gpg:read`, a list, empty for the test user).
 */
async function fapiConfig(kf: Keyflow, run: PlanRun, user: { email: string; password: string }): Promise<Record<string, unknown>> {
  const openid = variantOf(run).openid !== 'plain_oauth';
  // The OIDC plans' scopes (the claims-parameter module asks for address and phone claims too).
  const scope = await scopesFor(kf, openid ? WANTED_SCOPES : ['profile', 'email', 'address', 'phone', 'gpg:read', 'offline_access']);
  const callback = `${suiteBase(kf)}/callback`;
  // Message Signing: the clients' requests come only as signed request objects (the plan checks that a plain one is refused).
  const signedRequests = run.name.startsWith('fapi2-message-signing');
  const clients = await fapiClients({ callback, scope, signedRequests, cli: (args) => cli(kf.env, args) });
  const resourceUrl = `${kf.issuer}${openid ? '/api/oauth/userinfo' : '/api/oauth/me/gpg_keys'}`;
  return fapiSuiteConfig({ issuer: kf.issuer, alias: ALIAS, user, scope, openid, clients, resourceUrl, callback });
}

/** Two confidential clients (client_secret_basic, RS256, no PKCE: most OIDCC modules send none) for the suite's callbacks. */
async function staticClients(kf: Keyflow, scope: string, backchannel: boolean): Promise<[SuiteClient, SuiteClient]> {
  const base = suiteBase(kf);
  const make = async (n: number) =>
    (await cli(kf.env, [
      'clients',
      'create',
      '--name',
      `OIDF conformance client ${n}`,
      '--redirect-uri',
      `${base}/callback`,
      '--post-logout-redirect-uri',
      `${base}/post_logout_redirect`,
      ...(backchannel ? ['--backchannel-logout-uri', `${base}/backchannel_logout`] : []),
      '--scope',
      scope,
      '--auth-method',
      'client_secret_basic',
      '--id-token-alg',
      'RS256',
      '--no-pkce',
    ])) as SuiteClient;
  return [await make(1), await make(2)];
}

async function initialAccessToken(kf: Keyflow): Promise<string> {
  const made = (await cli(kf.env, [
    'tokens',
    'create',
    '--user',
    USER_EMAIL,
    '--name',
    'conformance registration',
    '--scope',
    'apps:write',
    '--expires-in-days',
    '1',
  ])) as {
    token: string;
  };
  return made.token;
}

/** The suite's REST API, through the kit's nginx (its certificate is the kit's own). */
function suiteApi<T>(kit: Kit, method: 'GET' | 'POST', route: string): Promise<T> {
  const base = new URL(`https://${process.env.OIDF_HOST ?? 'localhost.emobix.co.uk'}:${process.env.OIDF_HTTPS_PORT ?? '8443'}`);
  const ca = fs.readFileSync(path.join(kit.work, 'tls', 'server.crt'));
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(route, base), { method, ca, timeout: 60_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => {
        if ((res.statusCode ?? 500) >= 300) return reject(new Error(`suite ${method} ${route}: ${res.statusCode} ${body.slice(0, 200)}`));
        try {
          resolve(JSON.parse(body) as T);
        } catch {
          reject(new Error(`suite ${method} ${route}: not JSON`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`suite ${method} ${route}: no answer`)));
    req.on('error', reject);
    req.end();
  });
}

async function moduleStatus(kit: Kit, id: string): Promise<string> {
  return (await suiteApi<{ status: string }>(kit, 'GET', `/api/info/${id}`)).status;
}

async function untilStatus(kit: Kit, id: string, wanted: string[], timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await moduleStatus(kit, id);
    if (wanted.includes(status) || status === 'INTERRUPTED') return status;
    if (Date.now() > deadline) throw new Error(`module ${id} stayed ${status}`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/**
 * `oidcc-server-rotate-keys` reads the JWKS, then waits for the operator to
 * rotate the OP's keys before it is started; the suite's runner starts it at
 * once (and it fails). Run it again the way it is meant: created in the same
 * plan, the keys rotated with the CLI once it has read the JWKS, started after
 * every Keyflow process publishes the new key (within 30 s; it signs minutes
 * later, which the module does not check). The plan's summary then reports
 * this instance, the last.
 */
async function rotateKeysModule(kit: Kit, kf: Keyflow, planId: string): Promise<void> {
  const plan = await suiteApi<{ modules: { testModule: string; variant?: unknown }[] }>(kit, 'GET', `/api/plan/${planId}`);
  const entry = plan.modules.find((m) => m.testModule === 'oidcc-server-rotate-keys');
  if (!entry) return;
  say('oidcc-server-rotate-keys: again, with a key rotation (keyflow keys rotate) while it waits');
  const query = new URLSearchParams({ test: entry.testModule, plan: planId, ...(entry.variant ? { variant: JSON.stringify(entry.variant) } : {}) });
  const created = await suiteApi<{ id: string }>(kit, 'POST', `/api/runner?${query.toString()}`);
  if ((await untilStatus(kit, created.id, ['CONFIGURED'], 120_000)) !== 'CONFIGURED') return;
  await cli(kf.env, ['keys', 'rotate', '--alg', 'RS256']);
  await new Promise((r) => setTimeout(r, 31_000));
  await suiteApi(kit, 'POST', `/api/runner/${created.id}`);
  await untilStatus(kit, created.id, ['FINISHED'], 240_000);
}

/**
 * What a REVIEW module's browser captured for the reviewer (HtmlUnit keeps the
 * page source): each page's title, added to its notes so the results say what
 * a person is asked to look at.
 */
async function capturedPages(kit: Kit, modules: ModuleResult[]): Promise<ModuleResult[]> {
  return Promise.all(
    modules.map(async (m) => {
      if (m.result !== 'REVIEW' || !m.id) return m;
      const log = await suiteApi<{ page_source?: string }[]>(kit, 'GET', `/api/log/${m.id}`).catch((err: Error) => {
        say(`the captured pages of ${m.module} could not be read: ${err.message}`);
        return [];
      });
      if (!Array.isArray(log)) return m;
      const titles = log.flatMap((e) => (e.page_source ? [/<title>([^<]*)<\/title>/.exec(e.page_source)?.[1]?.trim() ?? '(untitled)'] : []));
      return titles.length ? { ...m, notes: [...m.notes, `captured page: ${titles.join('; ')}`] } : m;
    }),
  );
}

/** The kit's per-module summary of a plan, written again (after a module was run once more). */
function summarize(kit: Kit, planId: string, file: string): void {
  spawnSync(path.join(kit.work, 'venv', 'bin', 'python'), [path.join(path.dirname(kit.script), 'lib', 'summary.py'), planId, file], {
    env: { ...kit.env, OIDF_SUITE_URL: `https://${process.env.OIDF_HOST ?? 'localhost.emobix.co.uk'}:${process.env.OIDF_HTTPS_PORT ?? '8443'}` },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function runPlan(kit: Kit, kf: Keyflow, run: PlanRun, user: { email: string; password: string }, scope: string): Promise<PlanResult> {
  const started = Date.now();
  const kind: ConfigKind = run.config;
  const dynamic = kind === 'dynamic' || kind === 'dynamic-backchannel';
  const config =
    kind === 'fapi'
      ? await fapiConfig(kf, run, user)
      : suiteConfig(kind, {
          issuer: kf.issuer,
          alias: ALIAS,
          user,
          scope,
          ...(dynamic ? { initialAccessToken: await initialAccessToken(kf) } : { clients: await staticClients(kf, scope, kind === 'backchannel') }),
        });
  // The kit picks the file by the plan's name (suite-config-backchannel.json for a back-channel plan,
  // suite-config-dynamic.json for dynamic registration); each holds this plan's configuration.
  const configDir = path.join(kit.work, 'config');
  fs.mkdirSync(configDir, { recursive: true });
  for (const file of ['suite-config.json', 'suite-config-backchannel.json', 'suite-config-dynamic.json'])
    fs.writeFileSync(path.join(configDir, file), JSON.stringify(config, null, 2), { mode: 0o600 });
  let results: string | null = null;
  await kitCommand(kit, ['run', run.name], { allowFailure: true, onLine: (line) => (results = /^\[oidf\] results: (.+)$/.exec(line)?.[1] ?? results) });
  const seconds = Math.round((Date.now() - started) / 1000);
  const summary = results && path.join(results, `${planName(run)}-summary.json`);
  if (!summary || !fs.existsSync(summary))
    return { name: run.name, planId: null, seconds, modules: [], error: 'the plan did not start (see the runner log above)' };
  const first = readSummary(summary);
  if (first.modules.some((m) => m.module === 'oidcc-server-rotate-keys')) {
    await rotateKeysModule(kit, kf, first.planId).catch((err: Error) => say(`oidcc-server-rotate-keys could not be run again: ${err.message}`));
    summarize(kit, first.planId, summary);
  }
  const final = readSummary(summary);
  return { name: run.name, seconds: Math.round((Date.now() - started) / 1000), planId: final.planId, modules: await capturedPages(kit, final.modules) };
}

function gitCommit(): string {
  const rev = spawnSyncText('git', ['rev-parse', '--short=12', 'HEAD']);
  const dirty = spawnSyncText('git', ['status', '--porcelain', '--untracked-files=no']) !== '';
  return `${rev}${dirty ? ' (with uncommitted changes)' : ''}`;
}

function spawnSyncText(cmd: string, args: string[]): string {
  return spawnSync(cmd, args, { cwd: PROJECT_ROOT, encoding: 'utf8' }).stdout.trim();
}

/** The settings of a set of Keyflows, as the results name them. */
function settingsText(profiles: KeyflowProfile[]): string {
  const text = (p: KeyflowProfile) =>
    Object.entries(SETTINGS[p])
      .filter(([k]) => k !== 'DATA_DIR')
      .map(([k, v]) => `\`${k}=${v}\``)
      .join(', ');
  return profiles.length === 1 ? text(profiles[0]!) : profiles.map((p) => `${p.toUpperCase()} plans: ${text(p)}`).join('; ');
}

/**
 * The plans of one Keyflow profile, in order: a Keyflow with its settings, the
 * suite (its database is in that Keyflow's FerretDB), the test user, the
 * plans; then both stopped, unless `keep` (the last group of a run).
 */
async function runGroup(kit: Kit, profile: KeyflowProfile, plans: PlanRun[], keep: boolean): Promise<PlanResult[]> {
  const kf = await startKeyflow(kit, SETTINGS[profile], profile === 'fapi');
  const results: PlanResult[] = [];
  try {
    await kitCommand(kit, ['start']);
    const user = await provisionUser(kf);
    const scope = await scopesFor(kf);
    for (const run of plans) {
      const result = await runPlan(kit, kf, run, user, scope);
      results.push(result);
      const t = totals(result);
      say(
        `${run.name}: ${Object.entries(t)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} (${result.seconds} s)`,
      );
    }
  } finally {
    if (keep) say('--keep: the suite, nginx and Keyflow keep running (stop them with oidf.sh stop and Ctrl-C)');
    else {
      await kitCommand(kit, ['stop', '--keep-keyflow'], { allowFailure: true });
      await kf.front?.close();
      await kf.process.stop();
    }
  }
  return results;
}

async function main(): Promise<number> {
  // Ctrl-C or a SIGTERM: the plan running stops, then the suite and this run's Keyflow (a second signal ends at once).
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      say(`${signal}: stopping the plan running, then the suite and Keyflow…`);
      interruptKitCommands();
    });
  const args = process.argv.slice(2);
  const keep = args.includes('--keep');
  const docs = !args.includes('--no-docs');
  const names = args.filter((a) => !a.startsWith('--'));
  const plans = names.length ? plansNamed(names) : DEFAULT_PLANS;
  const kit = findKit();
  say(`plans: ${plans.map((p) => p.name).join(', ')}`);
  await kitCommand(kit, ['build']);
  await kitCommand(kit, ['tls']);
  // One Keyflow (and suite) per profile, in the order the plans first name them.
  const profiles = [...new Set(plans.map((p) => p.keyflow))];
  const results: PlanResult[] = [];
  for (const [i, profile] of profiles.entries())
    results.push(
      ...(await runGroup(
        kit,
        profile,
        plans.filter((p) => p.keyflow === profile),
        keep && i === profiles.length - 1,
      )),
    );
  const section = markdown(results, {
    date: new Date().toISOString().slice(0, 10),
    suite:
      fs
        .readdirSync(path.dirname(kit.script))
        .find((f) => f.startsWith('conformance-suite-'))
        ?.replace(/^conformance-suite-|\.tar\.gz$/g, '') ?? 'unknown',
    commit: gitCommit(),
    settings: `${settingsText(profiles)}, the suite's JWKS check ${kit.env.OIDF_AKP_PATCH === '1' ? 'patched to skip AKP keys' : 'unpatched'}`,
  });
  process.stdout.write(`\n${section}\n`);
  if (docs && !names.length) say(`results written to ${writeDocs(section)}`);
  else if (docs) say('a partial run (plans named): docs/conformance.md left as it is');
  return results.some(failed) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    say(`error: ${(err as Error).message}`);
    process.exit(1);
  },
);
