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
