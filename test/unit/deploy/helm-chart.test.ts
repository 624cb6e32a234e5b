// The Helm chart (deploy/helm/keyflow), checked as far as this machine can
// without a cluster: `helm lint --strict`, `helm template` with the choices an
// operator makes (a Secret of the chart's or their own, Temporal over mutual
// TLS, no ingress or autoscaler), every rendered object decoded strictly into
// the Kubernetes API's Go types (tools/kubernetes: an unknown field or a wrong
// type fails), and the promises of docs/deployment.md read off the manifests:
// probes, a non-root read-only container, the client address trusted from the
// ingress controller only, no secret outside the Secret. Both tools are built
// by the bootstrap in test mode from the Go module proxy.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ENV_VARIABLE_NAMES } from '../../../lib/config/env.js';
import { SearchAttributes } from '../../../lib/temporal/search-attributes.js';
import { PROJECT_ROOT } from '../../../lib/runtime/paths.js';
import type { Json } from '../../support/harness.js';

const toolchain = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'tools/scripts/toolchain.json'), 'utf8')) as {
  helm: { binary: string };
  k8sManifests: { binary: string };
};
const HELM = path.join(PROJECT_ROOT, toolchain.helm.binary);
const CHECK = path.join(PROJECT_ROOT, toolchain.k8sManifests.binary);
const CHART = path.join(PROJECT_ROOT, 'deploy/helm/keyflow');
// Without the binaries (a unit run before `node tools/scripts/bootstrap.mjs test`), skipped: npm test builds them.
const withTools = fs.existsSync(HELM) && fs.existsSync(CHECK) ? it : it.skip;

// helm built from source (no release ldflags) assumes Kubernetes 1.20: render for a current one.
const KUBE_VERSION = ['--kube-version', '1.34.0'];
const KEK = Buffer.alloc(32, 9).toString('base64');
const MONGODB_URI = 'mongodb://keyflow:s3cret-mongo-password@mongo-0.mongo:27017/?replicaSet=rs0&authSource=admin';
const REQUIRED = {
  issuer: 'https://id.example.com',
  trustedProxies: '10.42.0.0/16',
  'secrets.kek': KEK,
  'secrets.mongodbUri': MONGODB_URI,
};

/** `--set` arguments: true and false as booleans, anything else as a string (helm's escaping of commas). */
const sets = (values: Record<string, string>) =>
  Object.entries(values).flatMap(([k, v]) =>
    v === 'true' || v === 'false' ? ['--set', `${k}=${v}`] : ['--set-string', `${k}=${v.replace(/([,\\])/g, '\\$1')}`],
  );

function helm(args: string[]): string {
  return execFileSync(HELM, args, {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    stdio: 'pipe',
    env: { ...process.env, HELM_CACHE_HOME: os.tmpdir(), HELM_CONFIG_HOME: os.tmpdir() },
  });
}

interface K8sObject {
  kind: string;
  apiVersion: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Json;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** Renders the chart with `values`, checks every object strictly, and returns them. */
function render(values: Record<string, string> = {}): K8sObject[] {
  const out = helm(['template', 'kf', CHART, '--namespace', 'identity', ...KUBE_VERSION, ...sets({ ...REQUIRED, ...values })]);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-helm-')), 'rendered.yaml');
  fs.writeFileSync(file, out);
  expect(execFileSync(CHECK, [file], { encoding: 'utf8', stdio: 'pipe' })).toMatch(/^\d+ objects valid/);
  fs.rmSync(path.dirname(file), { recursive: true });
  return parseAllDocuments(out)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

const find = (objects: K8sObject[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
};
const container = (deployment: K8sObject) => deployment.spec.template.spec.containers[0];
const envOf = (c: Json) => Object.fromEntries((c.env as { name: string; value?: string; valueFrom?: unknown }[]).map((e) => [e.name, e.value ?? e.valueFrom]));

describe('the Helm chart', () => {
  withTools('passes helm lint --strict', () => {
    expect(helm(['lint', CHART, '--strict', ...sets(REQUIRED)])).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  withTools('runs the api and the worker as the docs say: probes, non-root read-only containers, resources, spread and budgets', () => {
    const objects = render();
    const api = find(objects, 'Deployment', 'kf-keyflow-api');
    const worker = find(objects, 'Deployment', 'kf-keyflow-worker');
    expect(container(api).command).toEqual(['node', 'dist/api/main.js']);
    expect(container(worker).command).toEqual(['node', 'dist/worker/main.js']);
    expect(container(api).readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container(api).livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container(worker).readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'health' });
    expect(container(worker).livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'health' });
    // The kubelet probes the pod's address: the worker's health listener is on every interface of the pod.
    expect(envOf(container(worker)).WORKER_HEALTH_ADDR).toBe('0.0.0.0:9466');
    expect(container(worker).ports).toContainEqual({ name: 'health', containerPort: 9466, protocol: 'TCP' });
    for (const d of [api, worker]) {
      const pod = d.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(container(d).securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
      expect(container(d).resources.requests).toEqual({ cpu: '250m', memory: '256Mi' });
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.affinity.podAntiAffinity).toBeDefined();
      expect(find(objects, 'PodDisruptionBudget', d.metadata.name).spec).toEqual({
        minAvailable: 1,
        selector: { matchLabels: d.spec.selector.matchLabels },
      });
    }
    // The autoscaler owns the api's replica count; the worker's is fixed.
    expect(api.spec.replicas).toBeUndefined();
    expect(worker.spec.replicas).toBe(2);
    expect(find(objects, 'HorizontalPodAutoscaler', 'kf-keyflow-api').spec).toMatchObject({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'kf-keyflow-api' },
      minReplicas: 2,
      maxReplicas: 6,
    });
  });

  withTools('serves the issuer host over TLS through the ingress, trusts X-Forwarded-For from the controller alone, and admits only it', () => {
    const objects = render();
    const ingress = find(objects, 'Ingress', 'kf-keyflow');
    expect(ingress.spec.tls).toEqual([{ hosts: ['id.example.com'], secretName: 'keyflow-tls' }]);
    expect(ingress.spec.rules[0].host).toBe('id.example.com');
    expect(ingress.spec.rules[0].http.paths[0].backend.service).toEqual({ name: 'kf-keyflow-api', port: { name: 'http' } });
    expect(find(objects, 'Service', 'kf-keyflow-api').spec.ports).toEqual([{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }]);
    const config = find(objects, 'ConfigMap', 'kf-keyflow').data!;
    expect(config).toMatchObject({ ISSUER: 'https://id.example.com', TRUSTED_PROXIES: '10.42.0.0/16', BIND_ADDRESS: '0.0.0.0', PORT: '3000' });
    const policy = find(objects, 'NetworkPolicy', 'kf-keyflow-api').spec;
    expect(policy.ingress[0]).toEqual({
      from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }],
      ports: [{ port: 'http', protocol: 'TCP' }],
    });
    expect(policy.ingress[1].ports).toEqual([{ port: 'metrics', protocol: 'TCP' }]);
    expect(find(objects, 'NetworkPolicy', 'kf-keyflow-worker').spec.ingress).toHaveLength(1);
  });

  withTools('keeps the KEK and the MongoDB credentials in the Secret only, and every setting a variable Keyflow reads', () => {
    const objects = render({ 'config.ID_TOKEN_CLAIMS': 'requested' });
    const secret = find(objects, 'Secret', 'kf-keyflow-secrets');
    expect(secret.stringData).toEqual({ KEYFLOW_KEK: KEK, MONGODB_URI: MONGODB_URI });
    const elsewhere = JSON.stringify(objects.filter((o) => o !== secret));
    expect(elsewhere).not.toContain(KEK);
    expect(elsewhere).not.toContain('s3cret-mongo-password');
    const config = find(objects, 'ConfigMap', 'kf-keyflow').data!;
    expect(config.ID_TOKEN_CLAIMS).toBe('requested');
    for (const name of Object.keys(config)) expect(ENV_VARIABLE_NAMES).toContain(name);
    for (const d of ['kf-keyflow-api', 'kf-keyflow-worker']) {
      const c = container(find(objects, 'Deployment', d));
      expect(c.envFrom).toEqual([{ configMapRef: { name: 'kf-keyflow' } }]);
      for (const e of c.env as { name: string }[]) expect(ENV_VARIABLE_NAMES).toContain(e.name);
      expect(envOf(c).KEYFLOW_KEK).toEqual({ secretKeyRef: { name: 'kf-keyflow-secrets', key: 'KEYFLOW_KEK' } });
    }
  });

  withTools("uses an operator's own Secret and Temporal's mutual TLS files when named", () => {
    const objects = render({
      'secrets.existingSecret': 'keyflow-credentials',
      'secrets.kek': '',
      'secrets.mongodbUri': '',
      'temporal.tls.existingSecret': 'temporal-client-tls',
      'temporal.tls.serverName': 'temporal.internal',
    });
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    for (const d of ['kf-keyflow-api', 'kf-keyflow-worker']) {
      const deployment = find(objects, 'Deployment', d);
      const env = envOf(container(deployment));
      expect(env.MONGODB_URI).toEqual({ secretKeyRef: { name: 'keyflow-credentials', key: 'MONGODB_URI' } });
      expect(env).toMatchObject({
        TEMPORAL_TLS_CA: '/etc/keyflow/temporal-tls/ca.crt',
        TEMPORAL_TLS_CERT: '/etc/keyflow/temporal-tls/tls.crt',
        TEMPORAL_TLS_KEY: '/etc/keyflow/temporal-tls/tls.key',
        TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      });
      expect(container(deployment).volumeMounts).toContainEqual({ name: 'temporal-tls', mountPath: '/etc/keyflow/temporal-tls', readOnly: true });
      expect(deployment.spec.template.spec.volumes).toContainEqual({
        name: 'temporal-tls',
        secret: { secretName: 'temporal-client-tls', defaultMode: 0o440 /* 288 */ },
      });
    }
  });

  withTools("registers the namespace and exactly the search attributes Keyflow's workflows set, before install and upgrade", () => {
    const job = find(render(), 'Job', 'kf-keyflow-temporal-setup');
    expect(job.metadata.annotations!['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    const env = envOf(job.spec.template.spec.containers[0]);
    expect(env).toMatchObject({ TEMPORAL_ADDRESS: 'temporal-frontend.temporal.svc:7233', TEMPORAL_NAMESPACE: 'keyflow' });
    expect(String(env.SEARCH_ATTRIBUTES).split(' ').sort()).toEqual(
      Object.values(SearchAttributes)
        .map((k) => k.name)
        .sort(),
    );
  });

  withTools('leaves out the ingress, the autoscaler, the network policies and the setup job when turned off', () => {
    const objects = render({
      'ingress.enabled': 'false',
      'api.autoscaling.enabled': 'false',
      'networkPolicy.enabled': 'false',
      'temporal.setupJob.enabled': 'false',
    });
    const kinds = objects.map((o) => o.kind);
    for (const kind of ['Ingress', 'HorizontalPodAutoscaler', 'NetworkPolicy', 'Job']) expect(kinds).not.toContain(kind);
    expect(find(objects, 'Deployment', 'kf-keyflow-api').spec.replicas).toBe(2);
  });

  withTools.each([
    [{ issuer: '' }, /issuer is required/],
    [{ issuer: 'http://id.example.com' }, /issuer must be an https:\/\/ URL/],
    [{ trustedProxies: '' }, /trustedProxies is required/],
    [{ 'secrets.kek': '' }, /secrets.kek is required/],
    [{ 'config.ISSUER': 'https://other.example.com' }, /config.ISSUER is set by the chart/],
    [{ 'config.KEYFLOW_KEK': KEK }, /config.KEYFLOW_KEK is set by the chart/],
    [{ 'temporal.address': 'no port' }, /temporal.address|does not match pattern/],
  ])('refuses %j with a message that says what to set', (values, message) => {
    expect(() => helm(['template', 'kf', CHART, ...KUBE_VERSION, ...sets({ ...REQUIRED, ...values })])).toThrow(message);
  });

  withTools('has a manifest check that fails a misspelt field, a wrong type and an unknown kind (the check is real)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-k8s-'));
    try {
      const deployment = (spec: string) =>
        `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: x }\nspec:\n  selector: { matchLabels: { a: b } }\n  template:\n    metadata: { labels: { a: b } }\n    spec:\n${spec}`;
      const cases: [string, RegExp][] = [
        [deployment('      containers: [{ name: c, image: i, readinessProbes: {} }]\n'), /unknown field "spec.template.spec.containers\[0\].readinessProbes"/],
        [deployment('      containers: [{ name: c, image: i, ports: [{ containerPort: "http" }] }]\n'), /containerPort|cannot unmarshal/],
        ['apiVersion: apps/v1\nkind: Deploymnet\nmetadata: { name: x }\n', /no kind "Deploymnet"/],
        [deployment('      containers: [{ name: c, image: i, ports: [{ name: Not_A_Port_Name, containerPort: 80 }] }]\n'), /port "Not_A_Port_Name"/],
      ];
      for (const [i, [yaml, message]] of cases.entries()) {
        const file = path.join(dir, `${i}.yaml`);
        fs.writeFileSync(file, yaml);
        expect(() => execFileSync(CHECK, [file], { encoding: 'utf8', stdio: 'pipe' })).toThrow(message);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
