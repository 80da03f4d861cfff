// Applies numbered SQL migrations once each, in order, under an advisory lock, refusing edited ones.
import { migrationChecksum } from './checksum.ts';

/** Anything with pg's `query` shape: pg.Client, the Neon driver's Client or PoolClient. One session. */
export interface MigrationClient {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(text: string, params?: unknown[]): Promise<{ rows: any[] }>;
}

/** One file `NNNN_name.sql`: version NNNN, name without number or extension, and its SQL. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

// "runstate" in ASCII as a bigint: one lock for every runner against this database.
const ADVISORY_LOCK_KEY = '8247619734751769701';

/** The file a migration came from, e.g. 0001_core.sql; used in every error the runner throws. */
export function migrationFileName(migration: Pick<Migration, 'version' | 'name'>): string {
  return `${String(migration.version).padStart(4, '0')}_${migration.name}.sql`;
}

/**
 * Applies every migration not yet recorded in `schema_migrations`, each in its own transaction,
 * in version order. The session-level advisory lock makes concurrent runners apply each migration
 * once: the second waits, then finds nothing pending. A migration whose SQL changed since it was
 * applied stops the run before anything new is applied ("never edited once landed").
 * The SQL must be valid inside a transaction (so no CREATE INDEX CONCURRENTLY).
 */
export async function applyMigrations(client: MigrationClient, migrations: Migration[]): Promise<{ applied: string[] }> {
  const ordered = checkedInOrder(migrations);
  const checksums = await Promise.all(ordered.map((migration) => migrationChecksum(migration.sql)));
  await client.query(`SELECT pg_advisory_lock(${ADVISORY_LOCK_KEY})`);
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         checksum text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query('SELECT version, checksum FROM schema_migrations');
    const appliedChecksums = new Map<number, string>(
      rows.map((row: { version: number; checksum: string }) => [Number(row.version), row.checksum]),
    );
    ordered.forEach((migration, index) => {
      const recorded = appliedChecksums.get(migration.version);
      if (recorded !== undefined && recorded !== checksums[index]) {
        throw new Error(
          `migration ${migrationFileName(migration)} was edited after it was applied; ` +
            'landed migrations are never edited — add a new numbered file instead',
        );
      }
    });
    const applied: string[] = [];
    for (const [index, migration] of ordered.entries()) {
      if (appliedChecksums.has(migration.version)) continue;
      await applyOne(client, migration, checksums[index] as string);
      applied.push(migrationFileName(migration));
    }
    return { applied };
  } finally {
    // An unlock can only fail on a broken session, and ending the session releases the lock anyway.
    await client.query(`SELECT pg_advisory_unlock(${ADVISORY_LOCK_KEY})`).catch(() => undefined);
  }
}

async function applyOne(client: MigrationClient, migration: Migration, checksum: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(migration.sql);
    await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
      migration.version,
      migration.name,
      checksum,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw new Error(`migration ${migrationFileName(migration)} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function checkedInOrder(migrations: Migration[]): Migration[] {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  ordered.forEach((migration, index) => {
    if (!Number.isInteger(migration.version) || migration.version < 1) {
      throw new Error(`migration ${migrationFileName(migration)} has an invalid version`);
    }
    const previous = ordered[index - 1];
    if (previous !== undefined && previous.version === migration.version) {
      throw new Error(`migrations ${migrationFileName(previous)} and ${migrationFileName(migration)} share version ${migration.version}`);
    }
  });
  return ordered;
}
