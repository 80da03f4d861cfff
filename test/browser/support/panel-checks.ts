// Checks the console's panel tests share: what a script in the page could read, and whether a panel's tables stay inside
// its card at the current viewport.
import type { Page } from 'playwright-core';
import type { Browser } from './chromium.ts';

/** What a script in the page, or anyone with the profile, could read: storage, script-visible cookies, the DOM. */
export async function readableByScripts(page: Page, browser: Browser): Promise<string> {
  const inPage = await page.evaluate(() =>
    JSON.stringify({
      local: Object.entries(localStorage),
      session: Object.entries(sessionStorage),
      cookie: document.cookie,
      html: document.documentElement.outerHTML,
    }),
  );
  const cookies = await browser.context.cookies();
  return inPage + JSON.stringify(cookies.filter((cookie) => !cookie.httpOnly));
}

/**
 * What sticks out: each visible table of the panel wider than the card's content box, the card itself scrolling
 * sideways, or the page wider than the window. Empty when the panel fits.
 */
export async function panelOverflow(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const card = document.querySelector(sel);
    if (!(card instanceof HTMLElement)) return [`no ${sel}`];
    const problems: string[] = [];
    const style = getComputedStyle(card);
    const inner = card.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    for (const table of card.querySelectorAll('table')) {
      if (table.offsetParent === null) continue;
      const width = table.getBoundingClientRect().width;
      if (width > inner + 0.5) problems.push(`a table is ${width}px in a ${inner}px card`);
    }
    if (card.scrollWidth > card.clientWidth) problems.push(`the card scrolls: ${card.scrollWidth} > ${card.clientWidth}`);
    if (document.documentElement.scrollWidth > window.innerWidth) problems.push('the page scrolls sideways');
    return problems;
  }, selector);
}

/**
 * Every visible control of the card (button, input, select, link) that is not wholly inside the card's box and inside
 * each box between it and the card that clips (a table's scroller, an overflow: hidden or auto box): what a person would
 * see cut off ("Ren" for Remove). Empty when every control is whole.
 */
export async function clippedControls(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const card = document.querySelector(sel);
    if (!(card instanceof HTMLElement)) return [`no ${sel}`];
    const problems: string[] = [];
    const inside = (inner: DOMRect, outer: DOMRect) =>
      inner.left >= outer.left - 0.5 &&
      inner.right <= outer.right + 0.5 &&
      inner.top >= outer.top - 0.5 &&
      inner.bottom <= outer.bottom + 0.5;
    const name = (control: Element) =>
      `${control.tagName.toLowerCase()} "${(control.getAttribute('aria-label') ?? control.textContent ?? control.getAttribute('name') ?? '').trim().slice(0, 60)}"`;
    for (const control of card.querySelectorAll('button, input, select, a[href], textarea')) {
      if (!(control instanceof HTMLElement) || control.offsetParent === null) continue;
      const box = control.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      // The card's own box (its border edge) and every clipping box on the way to it.
      for (let outer: HTMLElement | null = control.parentElement; outer !== null; outer = outer.parentElement) {
        const style = getComputedStyle(outer);
        const clips = outer === card || style.overflowX !== 'visible' || style.overflowY !== 'visible' || outer.tagName === 'TABLE';
        if (clips && !inside(box, outer.getBoundingClientRect())) {
          problems.push(
            `${name(control)} is cut by ${outer === card ? 'its card' : outer.tagName.toLowerCase()} (${Math.round(box.left)}–${Math.round(box.right)} in ${Math.round(outer.getBoundingClientRect().left)}–${Math.round(outer.getBoundingClientRect().right)})`,
          );
          break;
        }
        if (outer === card) break;
      }
    }
    return problems;
  }, selector);
}

/** An error as the console shows it: its words (a capitalised sentence), then the machine code as a detail. */
export const inWords = (code: string): RegExp => new RegExp(`^[A-Z][^]*[.!?…] code: ${code}$`);

/** The absolute form every date has on hover (its title): `2026-12-07 09:56 UTC`. */
export const STAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/;

/** A relative date as the console writes it: `just now`, `3 min ago`, `in 5 min`, `in 3 months`. */
export const RELATIVE = /^(just now|(in )?\d+ (min|h|days?|months?|years?)( ago)?)$/;
