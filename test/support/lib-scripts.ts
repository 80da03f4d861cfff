// Every Lua script lib declares: each module under lib/ is imported (a new file cannot be left out, as it could from
// a list kept by hand), and then the registry defineScript fills is read (lib/redis/declared-scripts.ts).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { declaredScripts, type LuaScript } from '../../lib/redis/index.ts';

export const LIB_DIR = fileURLToPath(new URL('../../lib/', import.meta.url));

/** Every TypeScript module under lib/, as absolute paths (type declarations left out: they hold no code). */
export function libModules(): string[] {
  return readdirSync(LIB_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .sort()
    .map((file) => join(LIB_DIR, file));
}

// One after another: imported all at once, one module was once evaluated twice in a busy full run (by the test
// runner's concurrent loading; lib has no import cycle), and its script declared twice.
for (const file of libModules()) await import(file);

/**
 * lib's scripts, read once every lib module has loaded and before the importing test file declares any probe of its
 * own (its imports, this one included, run before its body).
 */
export const LIB_SCRIPTS: readonly LuaScript[] = declaredScripts();
