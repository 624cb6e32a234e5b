// Accessibility checks of a page with axe-core (a dev dependency): its
// violations of WCAG 2.1 A and AA and of axe's best practices, each with the
// elements concerned, so that a failing test says what to fix.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

let axeSource: string | undefined;
/** What is checked: WCAG 2.1 A and AA, and axe's best practices. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

/** The axe-core violations of what `page` shows now (none: []). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol: the page's CSP (script-src 'self') does not apply.
  await page.evaluate(axeSource);
  // A string: the tests compile without the DOM's types.
  return page.evaluate<AxeViolation[]>(`(async () => {
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(AXE_TAGS)} } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  })()`);
}
