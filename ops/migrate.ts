// `npm run migrate`: applies migrations/ in order to DATABASE_URL (any PostgreSQL, Neon included), for deploys.
import pg from 'pg';
import { applyMigrationsFromDisk } from './migrations-from-disk.ts';

const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl === undefined || databaseUrl === '') {
  console.error('migrate: set DATABASE_URL to the postgres:// URL of the database to migrate');
  process.exit(1);
}

const client = new pg.Client({ connectionString: databaseUrl });
try {
  await client.connect();
  const { applied } = await applyMigrationsFromDisk(client);
  console.log(applied.length === 0 ? 'migrate: already up to date' : `migrate: applied ${applied.join(', ')}`);
} catch (error) {
  // pg's messages do not include the connection string; the URL itself is never printed.
  console.error(`migrate: failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await client.end().catch(() => undefined);
}
