// The metric names and label names a PromQL expression refers to, by a small
// tokenizer rather than a full parser: enough for the expressions of the
// alert rules and the dashboard under deploy/, which a test checks against the
// metric catalogue. An identifier is a metric name unless it is a function or
// an aggregation (followed by `(`, or by `by`/`without`), a keyword, or a label
// name (inside `{…}` or a `by (…)`-style list).

export interface MetricReference {
  /** As written, e.g. http_server_request_duration_seconds_bucket. */
  name: string;
  /** The label names of its `{…}` matchers. */
  labels: string[];
}

export interface PromqlReferences {
  metrics: MetricReference[];
  /** Label names of by/without/on/ignoring/group_left/group_right lists. */
  groupingLabels: string[];
}

const AGGREGATIONS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
]);
const GROUPING = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'atan2', 'inf', 'nan', 'start', 'end']);

type Token = { kind: 'ident' | 'string' | 'number' | 'punct'; text: string };

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < expr.length) {
    const c = expr[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '#') {
      // A comment runs to the end of the line.
      while (i < expr.length && expr[i] !== '\n') i++;
    } else if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < expr.length && expr[j] !== c) j += expr[j] === '\\' && c !== '`' ? 2 : 1;
      tokens.push({ kind: 'string', text: expr.slice(i + 1, j) });
      i = j + 1;
    } else if (c === '$') {
      // A Grafana variable ($__rate_interval, ${datasource}): not PromQL.
      const m = /^\$(\{[^}]*\}|\w+)/.exec(expr.slice(i));
      i += m ? m[0].length : 1;
    } else if (/[A-Za-z_:]/.test(c)) {
      const m = /^[A-Za-z_:][A-Za-z0-9_:]*/.exec(expr.slice(i))!;
      tokens.push({ kind: 'ident', text: m[0] });
      i += m[0].length;
    } else if (/[0-9.]/.test(c)) {
      // Numbers, durations (5m, 1h30m) and exponents (1e3) in one token.
      const m = /^[0-9.]+(?:[eE][+-]?[0-9]+)?[A-Za-z0-9]*/.exec(expr.slice(i))!;
      tokens.push({ kind: 'number', text: m[0] });
      i += m[0].length;
    } else {
      const m = /^(=~|!~|!=|==|>=|<=)/.exec(expr.slice(i));
      tokens.push({ kind: 'punct', text: m ? m[0] : c });
      i += m ? m[0].length : 1;
    }
  }
  return tokens;
}

/** Label names of a `{…}` matcher list starting at tokens[start] = '{'; returns them and the index after '}'. */
function readMatchers(tokens: Token[], start: number): { labels: string[]; next: number } {
  const labels: string[] = [];
  let i = start + 1;
  while (i < tokens.length && tokens[i]!.text !== '}') {
    const t = tokens[i]!;
    // A label name is an identifier (or a quoted name) followed by a matcher operator.
    if ((t.kind === 'ident' || t.kind === 'string') && ['=', '!=', '=~', '!~'].includes(tokens[i + 1]?.text ?? '')) labels.push(t.text);
    i++;
  }
  return { labels, next: i + 1 };
}

/** Label names of a `(a, b)` list starting at tokens[start] = '('; returns them and the index after ')'. */
function readLabelList(tokens: Token[], start: number): { labels: string[]; next: number } {
  const labels: string[] = [];
  let i = start + 1;
  while (i < tokens.length && tokens[i]!.text !== ')') {
    if (tokens[i]!.kind === 'ident' || tokens[i]!.kind === 'string') labels.push(tokens[i]!.text);
    i++;
  }
  return { labels, next: i + 1 };
}

export function promqlReferences(expr: string): PromqlReferences {
  const tokens = tokenize(expr);
  const metrics: MetricReference[] = [];
  const groupingLabels: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (t.kind === 'punct' && t.text === '[') {
      // A range or subquery duration: [5m], [1h:1m].
      while (i < tokens.length && tokens[i]!.text !== ']') i++;
      i++;
    } else if (t.kind === 'punct' && t.text === '{') {
      // A selector without a metric name ({__name__="…"}): its labels, unattributed.
      const { labels, next: after } = readMatchers(tokens, i);
      const name = labels.includes('__name__') ? (tokens.find((x, k) => k > i && x.kind === 'string')?.text ?? '') : '';
      if (name) metrics.push({ name, labels: labels.filter((l) => l !== '__name__') });
      i = after;
    } else if (t.kind !== 'ident') {
      i++;
    } else if (GROUPING.has(t.text)) {
      if (next?.text === '(') {
        const { labels, next: after } = readLabelList(tokens, i + 1);
        groupingLabels.push(...labels);
        i = after;
      } else i++;
    } else if (next?.text === '(' || AGGREGATIONS.has(t.text) || KEYWORDS.has(t.text.toLowerCase())) {
      i++;
    } else if (next?.text === '{') {
      const { labels, next: after } = readMatchers(tokens, i + 1);
      metrics.push({ name: t.text, labels });
      i = after;
    } else {
      metrics.push({ name: t.text, labels: [] });
      i++;
    }
  }
  return { metrics, groupingLabels };
}
