// The console page's three parts (HTML, one script, one stylesheet) and what they weigh (npm run size prints it).
import { consoleShell } from './shell.ts';
import { CONSOLE_SCRIPT } from './script.ts';
import { CONSOLE_STYLE } from './style.ts';

export { consoleShell, CONSOLE_SCRIPT, CONSOLE_STYLE };

/** The page as a browser first loads it: the shell (with a token-sized placeholder), its script and its stylesheet. */
export function consolePageParts(): Array<[name: string, text: string]> {
  return [
    ['HTML', consoleShell({ csrfToken: 'x'.repeat(43), signedIn: false })],
    ['JS', CONSOLE_SCRIPT],
    ['CSS', CONSOLE_STYLE],
  ];
}
