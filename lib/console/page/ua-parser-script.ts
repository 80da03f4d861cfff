// ua-parser-js's own browser build (1.x, MIT), served from /console/assets/ua-parser.js as the package ships it: a classic
// script that sets globalThis.UAParser, with which the console's script names each session's browser, system and
// device. Parsed in the page, not in the API (docs/console.md#your-sessions-client): imported by path, as the WebAuthn
// bundle is (./webauthn-script.ts), since the package's exports do not list its dist folder.
import UA_PARSER_SCRIPT from '../../../node_modules/ua-parser-js/dist/ua-parser.min.js?raw';

export { UA_PARSER_SCRIPT };
