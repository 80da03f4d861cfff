// The console's one script, served from /console/assets/console.js (the CSP's script-src 'self'). Its source is
// ./browser/console.js, plain browser JavaScript checked by tsc, ESLint and prettier; the `?raw` import brings it in as
// text at build time (each runtime's way is in docs/console.md#how-it-is-built), so no runtime reads a file.
import CONSOLE_SCRIPT from './browser/console.js?raw';

export { CONSOLE_SCRIPT };
