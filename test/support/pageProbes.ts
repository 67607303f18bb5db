import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const PROBES = readFileSync(new URL('./pageProbes.browser.js', import.meta.url), 'utf8');

async function probes(page: Page): Promise<void> {
  if ((await page.evaluate('typeof window.forjaProbes')) !== 'object') await page.evaluate(PROBES);
}

/**
 * Controls whose keyboard focus is hard to see (no solid outline of 2 px, or under 3:1 against
 * its background) or lands outside the viewport's width. Press a key first: browsers show focus
 * given by a script only once the user has used the keyboard.
 */
export async function focusRingProblems(page: Page): Promise<string[]> {
  await probes(page);
  return (await page.evaluate('window.forjaProbes.focusRings()')) as string[];
}

/** Pixels the page scrolls sideways (0: none) and up to five elements sticking out past the right edge. */
export async function sidewaysOverflow(page: Page): Promise<{ scroll: number; sticking: string[] }> {
  await probes(page);
  return (await page.evaluate('window.forjaProbes.overflow()')) as { scroll: number; sticking: string[] };
}
