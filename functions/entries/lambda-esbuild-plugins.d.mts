// Types of lambda-esbuild-plugins.mjs (plain JavaScript, so SST can import it with `node`), for the test that builds with it.
import type { Plugin } from 'esbuild';

declare const plugins: Plugin[];
export default plugins;
