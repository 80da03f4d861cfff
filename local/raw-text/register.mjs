// `--import ./local/raw-text/register.mjs`: registers ./hooks.mjs, so tsx-run tools (npm start, npm run size, npm run
// bench) can import the console's script as text the way the bundles do.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
