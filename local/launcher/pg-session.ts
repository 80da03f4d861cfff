// Opens one pg session for the launcher's own setup work (migrations, seed) and always closes it.
import pg from 'pg';

export async function withPgClient<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  // A dropped session surfaces as a rejected query; the event alone must not crash the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
