// `npm run docs:metrics`: writes docs/metrics.md from the metric catalogue
// (lib/model/metric-catalogue.ts); --check: see generated-doc.ts
// (test/unit/metrics-reference.test.ts makes the same check in `npm test`).
import { METRICS_REFERENCE_FILE, renderMetricsReference } from '../../lib/observability/metric-reference.js';
import { writeGeneratedDoc } from './generated-doc.js';

writeGeneratedDoc(METRICS_REFERENCE_FILE, renderMetricsReference(), 'docs:metrics');
