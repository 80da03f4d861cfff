// ua-parser-js's own browser build (1.x, MIT), served from /console/assets/ua-parser.js: a classic script that sets
// globalThis.UAParser, with which the console's script names each session's browser, system and device. Parsed in the
// page, not in the API (docs/console.md#how-it-is-built). Imported by path, as the WebAuthn bundle is
// (./webauthn-script.ts), since the package's exports do not list its dist folder.
import UA_PARSER_BUILD from '../../../node_modules/ua-parser-js/dist/ua-parser.min.js?raw';

/**
 * The build as it ships, inside a function whose `exports`, `module` and `define` are undefined: its UMD prologue asks
 * `typeof exports` first, and in the page that is the element <section id="exports"> (a named element is a global), so
 * unwrapped it would hang the parser on that element instead of on globalThis.
 */
export const UA_PARSER_SCRIPT = `(function (exports, module, define) {\n${UA_PARSER_BUILD}\n})();\n`;
