// The docs' screenshot of the console (docs/console.png), the same bytes from one run to the next, so `npm test` leaves
// git clean unless the console's look changed. The people's emails are fixed by the test; what the server makes at random
// or from the wall clock is held still here, only for the moment of the shot (docs/console.md#tests-and-figures):
// - the page's clock is frozen (playwright's page.clock) at a set distance from the newest invite's creation, so every
//   relative date and the invite's countdown read the same words each run;
// - the ids' tails, API key prefixes and absolute UTC stamps the page writes are swapped for stand-ins of the same
//   shape (the same id, the same stand-in), then put back after the shot.
import type { Page } from 'playwright-core';

/** How far after the newest invite's creation the frozen clock stands: its countdown reads `2h 59m 40s` (3 h invites). */
const AFTER_INVITE_MS = 20_000;
/** The absolute form every UTC stamp reads in the shot (the example date of docs/console.md). */
const STAMP = '2026-12-07 09:56 UTC';

/**
 * Freezes the page's clock, writes the full-page screenshot to `path`, then lets the page's time run on (from the real
 * now) with its own text back. `inviteTtlMs`: how long an invite lives, to find its creation from its expiry.
 */
export async function writeDocsScreenshot(page: Page, path: string, inviteTtlMs: number): Promise<void> {
  const expiries = await page
    .locator('time[data-expires]')
    .evaluateAll((times) => times.map((time) => (time as HTMLElement).dataset.expires ?? ''));
  const newest = Math.max(...expiries.map((iso) => Date.parse(iso)));
  if (!Number.isFinite(newest)) throw new Error('the screenshot needs an active invite, whose countdown sets the frozen clock');
  const frozenAt = newest - inviteTtlMs + AFTER_INVITE_MS;
  await page.clock.setFixedTime(frozenAt);
  // The page's one timer redraws every date and countdown each second: wait for it to have drawn the frozen instant.
  const countdown = durationWords(inviteTtlMs - AFTER_INVITE_MS);
  await page.locator('time[data-expires]', { hasText: countdown }).first().waitFor({ timeout: 5_000 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.evaluate(swapVolatileText, STAMP);
  try {
    await page.screenshot({ path, fullPage: true, animations: 'disabled', caret: 'hide' });
  } finally {
    await page.evaluate(restoreVolatileText);
    // resume() would leave Date.now() fixed; setting the system time ends the fixed time and lets it flow from now.
    await page.clock.setSystemTime(Date.now());
  }
}

/** The countdown as the page words it (lib/console/page/browser/console.js, duration). */
function durationWords(ms: number): string {
  const total = Math.ceil(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  return `${h}h ${m}m ${total % 60}s`;
}

/**
 * Runs in the page: every text node's id tails (`…` and 8 hex digits), API key prefixes (`rsk_` and 8 base62) and UTC
 * stamps become stand-ins; the old text is kept on the window for the restore.
 */
function swapVolatileText(stamp: string): void {
  // One numbering per kind, in the page's order: the first id's tail is …0001c0de, the first key rsk_Demo0001.
  const standIns = { tail: new Map<string, string>(), key: new Map<string, string>() };
  const standIn = (kind: keyof typeof standIns, found: string, make: (n: number) => string) => {
    const seen = standIns[kind];
    if (!seen.has(found)) seen.set(found, make(seen.size + 1));
    return seen.get(found) ?? found;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const changed: Array<[Text, string]> = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const text = node.textContent ?? '';
    const next = text
      .replace(/…[0-9a-f]{8}\b/g, (tail) => standIn('tail', tail, (n) => `…${n.toString(16).padStart(4, '0')}c0de`))
      .replace(/rsk_[0-9A-Za-z]{8}/g, (prefix) => standIn('key', prefix, (n) => `rsk_Demo${n.toString().padStart(4, '0')}`))
      .replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/g, stamp);
    if (next !== text) {
      changed.push([node as Text, text]);
      node.textContent = next;
    }
  }
  (window as unknown as { screenshotSwapped?: Array<[Text, string]> }).screenshotSwapped = changed;
}

/** Runs in the page: puts back the text swapVolatileText changed. */
function restoreVolatileText(): void {
  const holder = window as unknown as { screenshotSwapped?: Array<[Text, string]> };
  for (const [node, text] of holder.screenshotSwapped ?? []) node.textContent = text;
  delete holder.screenshotSwapped;
}
