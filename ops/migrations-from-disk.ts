// Reads migrations/NNNN_name.sql from disk and applies them; Node-only, for the local stack and the test setup.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyMigrations, migrationFileName } from '../lib/pg/migrate.ts';
import type { Migration, MigrationClient } from '../lib/pg/migrate.ts';

const DEFAULT_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));
const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** Loads every `NNNN_name.sql` in `dir`, sorted; refuses misnamed .sql files, duplicate versions and gaps. */
export async function loadMigrationsFromDisk(dir: string = DEFAULT_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = FILE_NAME.exec(file);
    if (match === null) {
      throw new Error(`migration file ${file} is not named NNNN_name.sql (lowercase, digits, underscores)`);
    }
    const version = Number(match[1]);
    const name = match[2] as string;
    const previous = migrations.at(-1);
    const expected = (previous?.version ?? 0) + 1;
    if (previous !== undefined && previous.version === version) {
      throw new Error(`migration files ${migrationFileName(previous)} and ${file} share version ${version}`);
    }
    if (version !== expected) {
      throw new Error(`migration ${file} leaves a gap: expected version ${String(expected).padStart(4, '0')} next`);
    }
    migrations.push({ version, name, sql: await readFile(join(dir, file), 'utf8') });
  }
  return migrations;
}

/** Applies the migrations found in `dir` (default: the repository's migrations/) through `client`. */
export async function applyMigrationsFromDisk(client: MigrationClient, dir?: string): Promise<{ applied: string[] }> {
  return applyMigrations(client, await loadMigrationsFromDisk(dir));
}
