// The metric catalogue is defined once (lib/model/metric-catalogue.ts): the
// checked-in docs/metrics.md must be what `npm run docs:metrics` writes now.
import fs from 'node:fs';
import path from 'node:path';
import { METRICS_REFERENCE_FILE, renderMetricsReference } from '../../lib/observability/metric-reference.js';
import { METRICS } from '../../lib/model/metric-catalogue.js';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

it(`${METRICS_REFERENCE_FILE} is what npm run docs:metrics writes`, () => {
  const checkedIn = fs.readFileSync(path.join(PROJECT_ROOT, METRICS_REFERENCE_FILE), 'utf8').split('\n');
  const generated = renderMetricsReference().split('\n');
  const line = checkedIn.findIndex((l, i) => l !== generated[i]);
  expect({ firstDifference: line === -1 && checkedIn.length === generated.length ? null : line + 1, hint: 'npm run docs:metrics' }).toEqual({
    firstDifference: null,
    hint: 'npm run docs:metrics',
  });
});

it('lists every metric of the catalogue with its labels', () => {
  const text = renderMetricsReference();
  for (const [name, spec] of Object.entries(METRICS)) {
    const row = text.split('\n').find((l) => l.startsWith(`| \`${name}\` |`));
    expect([name, row]).toEqual([name, expect.stringContaining(`| ${spec.type} |`)]);
    for (const label of spec.labels) expect(row).toContain(`\`${label}\``);
  }
});
