// Starts a load worker thread (bench/load/instance.ts): a worker inherits neither tsx's loader nor the raw-text hook
// from the main thread on Node 20, so it registers both before importing the TypeScript entry.
import { register } from 'tsx/esm/api';
import '../../local/raw-text/register.mjs';

register();
await import('./instance.ts');
