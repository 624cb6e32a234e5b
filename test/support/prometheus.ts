// A /metrics text as the tests read it, parsed by parse-prometheus-text-format.
// The parser keeps only an unlabelled histogram whole (it folds every labelled
// series into one), so a histogram is read as its three series: name_bucket
// (with `le`), name_sum and name_count, each sample with its labels.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

export interface ParsedMetrics {
  /** Family name → COUNTER, GAUGE, HISTOGRAM, … */
  types: Map<string, string>;
  help: Map<string, string>;
  /** The samples of a series (a counter or gauge by its name; a histogram's as name_bucket, name_sum, name_count). */
  samples(name: string): Sample[];
  /** Every label value of every sample. */
  labelValues(): string[];
}

export function parseMetrics(text: string): ParsedMetrics {
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  for (const family of parsePrometheusTextFormat(text)) {
    types.set(family.name, family.type);
    help.set(family.name, family.help);
  }
  // Without its TYPE line a histogram's _bucket, _sum and _count lines parse as untyped families of their own.
  const histograms = [...types].filter(([, type]) => type === 'HISTOGRAM').map(([name]) => `# TYPE ${name} histogram`);
  const flat = text
    .split('\n')
    .filter((line) => !histograms.includes(line))
    .join('\n');
  const series = new Map<string, Sample[]>();
  for (const family of parsePrometheusTextFormat(flat.endsWith('\n') ? flat : flat + '\n')) {
    const list = series.get(family.name) ?? [];
    for (const m of family.metrics) list.push({ labels: m.labels ?? {}, value: Number(m.value) });
    series.set(family.name, list);
  }
  return {
    types,
    help,
    samples: (name) => series.get(name) ?? [],
    labelValues: () => [...series.values()].flat().flatMap((s) => Object.values(s.labels)),
  };
}

/** The sum of a series' samples whose labels include `labels`. */
export function total(metrics: ParsedMetrics, name: string, labels: Record<string, string> = {}): number {
  return metrics
    .samples(name)
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}
