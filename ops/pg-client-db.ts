// The app's Db interface (lib/pg/db.ts) over one plain pg connection, so an ops command runs a lib operation as the app would.
import type pg from 'pg';
import type { Db } from '../lib/pg/db.ts';

export function pgClientDb(client: pg.Client): Db {
  return {
    async query<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
      return (await client.query(text, params)).rows as T[];
    },
    async transaction(statements) {
      await client.query('BEGIN');
      try {
        const results: Record<string, unknown>[][] = [];
        for (const statement of statements) results.push((await client.query(statement.text, statement.params)).rows);
        await client.query('COMMIT');
        return results;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    },
  };
}
