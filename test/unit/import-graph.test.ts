// No import loops among Keyflow's own modules, type imports included: every
// layer imports downward (the lint's layer rules say which way is down; this
// test catches loops inside a layer too, e.g. between two domain modules), and
// lib/ never reaches up into api/ or cli/ (a request's walk through the use
// cases in lib/ does not climb back into the layer that called it).
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

const FOLDERS = ['api', 'cli', 'workflows', 'activities', 'worker', 'lib', 'tools'];
/** `import … from './x.js'`, `export … from '../y.js'`, `import './z.js'` (relative specifiers only). */
const SPECIFIER = /^\s*(?:import|export)\s[^'";]*?['"](\.{1,2}\/[^'"]+)['"]/gm;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of FOLDERS.flatMap((f) => sources(path.join(PROJECT_ROOT, f)))) {
    const targets = [...fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)]
      .map((m) => path.resolve(path.dirname(file), m[1]!).replace(/\.js$/, '.ts'))
      .filter((t) => fs.existsSync(t));
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components with more than one module (Tarjan), i.e. the import loops. */
function loops(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(path.relative(PROJECT_ROOT, w));
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import graph', () => {
  it('reads every module of the product and its tooling', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    // The reader sees imports: the api's entry point imports its app.
    expect(graph.get(path.join(PROJECT_ROOT, 'api/server.ts'))).toContain(path.join(PROJECT_ROOT, 'api/app.ts'));
  });

  it('has no loops, type imports included', () => {
    expect(loops(importGraph())).toEqual([]);
  });

  it('keeps lib/ below api/ and cli/: no lib module imports an api or cli module, type imports included', () => {
    const above = ['api', 'cli'].map((f) => path.join(PROJECT_ROOT, f) + path.sep);
    const lib = path.join(PROJECT_ROOT, 'lib') + path.sep;
    const upward = [...importGraph()].flatMap(([from, targets]) =>
      from.startsWith(lib)
        ? targets.filter((t) => above.some((a) => t.startsWith(a))).map((t) => `${path.relative(PROJECT_ROOT, from)} -> ${path.relative(PROJECT_ROOT, t)}`)
        : [],
    );
    expect(upward).toEqual([]);
  });

  it('finds a loop when there is one', () => {
    const a = path.join(PROJECT_ROOT, 'a.ts');
    const b = path.join(PROJECT_ROOT, 'b.ts');
    expect(
      loops(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts']]);
  });
});
