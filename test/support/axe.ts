import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** The rules of WCAG 2.0 and 2.1, levels A and AA (axe's tags). */
export const WCAG_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] as const;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  rule: string;
  impact: string;
  help: string;
  /** One CSS selector per failing element, with axe's summary of why. */
  nodes: { target: string; why: string }[];
}

/**
 * Runs axe-core in the page as it is now (after scripts and at the viewport's width) and returns
 * the WCAG 2.0/2.1 A and AA violations. Injected through the debugging protocol, so the pages'
 * Content-Security-Policy needs no exception.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if ((await page.evaluate('typeof window.axe')) !== 'object') await page.evaluate(AXE_SOURCE);
  const options = { runOnly: { type: 'tag', values: WCAG_AA_TAGS }, resultTypes: ['violations'] };
  return (await page.evaluate(`axe.run(document, ${JSON.stringify(options)}).then((result) => result.violations.map((violation) => ({
    rule: violation.id,
    impact: violation.impact,
    help: violation.help,
    nodes: violation.nodes.map((node) => ({ target: node.target.join(' '), why: node.failureSummary })),
  })))`)) as AxeViolation[];
}

/** One line per failing element, for an assertion's message. */
export function describeViolations(violations: AxeViolation[]): string[] {
  return violations.flatMap((violation) => violation.nodes.map((node) => `${violation.rule} (${violation.impact}) ${node.target}: ${node.why.replace(/\s+/g, ' ').slice(0, 300)}`));
}
