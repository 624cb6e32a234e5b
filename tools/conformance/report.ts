// The results of a conformance run: the per-module table of each plan (the
// kit's summary JSON), printed, and written into docs/conformance.md between
// its results markers, with the date, the suite's version and Keyflow's commit.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/runtime/paths.js';

export interface ModuleResult {
  module: string;
  /** The module instance in the suite (null: never run). */
  id: string | null;
  status: string;
  result: string;
  notes: string[];
}

export interface PlanResult {
  /** The plan with its variant, as run. */
  name: string;
  planId: string | null;
  seconds: number;
  modules: ModuleResult[];
  /** Why the plan produced no module results (it did not start). */
  error?: string;
}

export const RESULTS = ['PASSED', 'WARNING', 'REVIEW', 'SKIPPED', 'FAILED'] as const;

/** Counts per result; a module that did not finish counts as FAILED. */
export function totals(plan: PlanResult): Record<(typeof RESULTS)[number], number> {
  const counts = { PASSED: 0, WARNING: 0, REVIEW: 0, SKIPPED: 0, FAILED: 0 };
  for (const m of plan.modules) {
    const result = m.status === 'FINISHED' && m.result in counts ? (m.result as keyof typeof counts) : 'FAILED';
    counts[result]++;
  }
  if (plan.error) counts.FAILED++;
  return counts;
}

export const failed = (plan: PlanResult) => totals(plan).FAILED > 0;

/** Reads the kit's summary of one plan run. */
export function readSummary(file: string): { planId: string; modules: ModuleResult[] } {
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { plan_id: string; modules: ModuleResult[] };
  return { planId: json.plan_id, modules: json.modules };
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ');

/** Markdown: a totals table over every plan, then each plan's modules that did not pass, with the suite's words. */
export function markdown(plans: PlanResult[], meta: { date: string; suite: string; commit: string; settings: string }): string {
  const lines = [
    `Last run: ${meta.date}, suite ${meta.suite}, Keyflow commit \`${meta.commit}\`, ${meta.settings}.`,
    '',
    '| Plan (variant) | Modules | PASSED | WARNING | REVIEW | SKIPPED | FAILED | Time |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const p of plans) {
    const t = totals(p);
    lines.push(`| \`${cell(p.name)}\` | ${p.modules.length} | ${RESULTS.map((r) => t[r] || '').join(' | ')} | ${p.seconds} s |`);
  }
  for (const p of plans) {
    const notPassed = p.modules.filter((m) => m.result !== 'PASSED');
    if (!notPassed.length && !p.error) continue;
    lines.push('', `**\`${cell(p.name)}\`**`, '');
    if (p.error) lines.push(`- did not run: ${cell(p.error)}`);
    for (const m of notPassed) {
      lines.push(`- ${m.status === 'FINISHED' ? m.result : `${m.status} (counted FAILED)`} \`${m.module}\``);
      for (const note of m.notes) lines.push(`  - ${cell(note)}`);
    }
  }
  return lines.join('\n');
}

export const START = '<!-- conformance results: written by `npm run conformance`, do not edit by hand -->';
export const END = '<!-- end of conformance results -->';

/** Replaces the results section of docs/conformance.md (kept otherwise as written). */
export function writeDocs(section: string): string {
  const file = path.join(PROJECT_ROOT, 'docs', 'conformance.md');
  const doc = fs.readFileSync(file, 'utf8');
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${file} has no results markers`);
  fs.writeFileSync(file, `${doc.slice(0, start + START.length)}\n\n${section}\n\n${doc.slice(end)}`);
  return file;
}
