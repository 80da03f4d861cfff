// Starts a load instance (bench/load/instance.ts) in a child process: tsx's loader and the raw-text hook are registered
// here rather than by flags, so the bench's own `--import`s (and its tsx CLI's) are not handed down.
import { register } from 'tsx/esm/api';
import '../../local/raw-text/register.mjs';

register();
await import('./instance.ts');
