// Where the local stack keeps its state: $RUNSTATE_DATA_DIR, else .data/ at the repository root (git-ignored).
import { mkdirSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function resolveDataDir(env: Record<string, string | undefined>): string {
  const given = env.RUNSTATE_DATA_DIR;
  return given !== undefined && given !== '' ? resolve(given) : resolve(REPO_ROOT, '.data');
}

/**
 * Creates the data folder when missing. 0711: others may pass through (the embedded PostgreSQL runs as
 * the `postgres` user when we are root) but not list it; every file inside guards itself (0600 / 0700).
 */
export function ensureDataDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o711 });
  return dir;
}

/** A path as the user would type it: relative to the working directory when inside it. */
export function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
