// The console page's parts (HTML, its script, the WebAuthn library's script, one stylesheet) and what they weigh (npm run
// size prints it).
import { consoleShell } from './shell.ts';
import { CONSOLE_SCRIPT } from './script.ts';
import { CONSOLE_STYLE } from './style.ts';
import { WEBAUTHN_SCRIPT } from './webauthn-script.ts';

export { consoleShell, CONSOLE_SCRIPT, CONSOLE_STYLE, WEBAUTHN_SCRIPT };

/** The page as a browser first loads it: the shell (with a token-sized placeholder), its two scripts and its stylesheet. */
export function consolePageParts(): Array<[name: string, text: string]> {
  return [
    ['HTML', consoleShell({ csrfToken: 'x'.repeat(43), signedIn: false })],
    ['JS', CONSOLE_SCRIPT],
    ['WebAuthn JS', WEBAUTHN_SCRIPT],
    ['CSS', CONSOLE_STYLE],
  ];
}
