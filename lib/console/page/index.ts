// The console page's parts (HTML, its script, the WebAuthn and user-agent libraries' scripts, one stylesheet) and what they weigh (npm run
// size prints it).
import { consoleShell } from './shell.ts';
import { CONSOLE_SCRIPT } from './script.ts';
import { CONSOLE_STYLE } from './style.ts';
import { UA_PARSER_SCRIPT } from './ua-parser-script.ts';
import { WEBAUTHN_SCRIPT } from './webauthn-script.ts';

export { consoleShell, CONSOLE_SCRIPT, CONSOLE_STYLE, UA_PARSER_SCRIPT, WEBAUTHN_SCRIPT };

/** The page as a browser first loads it: the shell (with a token-sized placeholder), its three scripts and its stylesheet. */
export function consolePageParts(): Array<[name: string, text: string]> {
  return [
    ['HTML', consoleShell({ csrfToken: 'x'.repeat(43), signedIn: false })],
    ['JS', CONSOLE_SCRIPT],
    ['WebAuthn JS', WEBAUTHN_SCRIPT],
    ['UA parser JS', UA_PARSER_SCRIPT],
    ['CSS', CONSOLE_STYLE],
  ];
}
