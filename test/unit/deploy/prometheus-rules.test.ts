// deploy/prometheus/alerts.yml loaded by Prometheus's own rule loader
// (tools/prometheus-rules, built by the bootstrap in test mode): the shape of
// the file, every expression parsed as PromQL, durations, and the templates of
// labels and annotations. metric-references.test.ts checks the names the rules
// use; this, that Prometheus would load them at all.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../lib/runtime/paths.js';

const { prometheusRules } = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'tools/scripts/toolchain.json'), 'utf8')) as {
  prometheusRules: { binary: string };
};
const CHECK = path.join(PROJECT_ROOT, prometheusRules.binary);
// Without the binary (a unit run before `node tools/scripts/bootstrap.mjs test`), skipped: npm test builds it.
const withCheck = fs.existsSync(CHECK) ? it : it.skip;

const check = (file: string) => execFileSync(CHECK, [file], { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: 'pipe' });

describe("Prometheus's rule loader on deploy/prometheus/alerts.yml", () => {
  withCheck('loads every rule', () => {
    expect(check('deploy/prometheus/alerts.yml')).toMatch(/SUCCESS: \d+ rules in \d+ groups/);
  });

  withCheck('refuses broken PromQL and a broken annotation template (the check is real)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyflow-rules-'));
    try {
      const rule = (expr: string, summary: string) =>
        `groups:\n  - name: broken\n    rules:\n      - alert: Broken\n        expr: ${expr}\n        annotations:\n          summary: '${summary}'\n`;
      fs.writeFileSync(path.join(dir, 'promql.yml'), rule('sum(rate(keyflow_sign_ins_total[5m])', 'fine'));
      fs.writeFileSync(path.join(dir, 'template.yml'), rule('up == 0', '{{ $labels.job '));
      expect(() => check(path.join(dir, 'promql.yml'))).toThrow(/unclosed left parenthesis/);
      expect(() => check(path.join(dir, 'template.yml'))).toThrow(/template/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
