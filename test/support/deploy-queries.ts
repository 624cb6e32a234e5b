// The PromQL of the operator's assets under deploy/: the Prometheus alert
// rules and the Grafana dashboard's panel queries, for the tests that check
// them against the metric catalogue (unit) and against what a running api and
// worker serve (integration).
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

const read = (f: string) => fs.readFileSync(path.join(PROJECT_ROOT, f), 'utf8');

export interface Rule {
  alert?: string;
  record?: string;
  expr: string;
}

export const alertRules = (): Rule[] =>
  (parse(read('deploy/prometheus/alerts.yml')) as { groups: { name: string; rules: Rule[] }[] }).groups.flatMap((g) => g.rules);

export interface Panel {
  title?: string;
  type: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}
export const dashboard = () => JSON.parse(read('deploy/grafana/keyflow-dashboard.json')) as { panels: Panel[] };
export const panelsOf = (panels: Panel[]): Panel[] => panels.flatMap((p) => [p, ...panelsOf(p.panels ?? [])]);

/** Every expression of the alert rules and the dashboard. */
export function deployQueries(): string[] {
  return [...alertRules().map((r) => r.expr), ...panelsOf(dashboard().panels).flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ''))];
}
