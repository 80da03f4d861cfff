// The migration runner and loader against real PostgreSQL: order, idempotence, edit refusal, concurrency, and the core schema's rules.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { applyMigrations, createPool } from '../../lib/pg/index.ts';
import type { Migration } from '../../lib/pg/index.ts';
import { applyMigrationsFromDisk, loadMigrationsFromDisk } from '../../ops/migrations-from-disk.ts';
import { startNeonProxy } from '../../local/emulators/neon/index.ts';
import type { NeonProxy } from '../../local/emulators/neon/index.ts';

const databaseUrl = inject('databaseUrl');
const schemas: string[] = [];
const clients: pg.Client[] = [];

async function client(): Promise<pg.Client> {
  const connected = new pg.Client({ connectionString: databaseUrl });
  await connected.connect();
  clients.push(connected);
  return connected;
}

/** A client whose unqualified names (schema_migrations included) land in a fresh scratch schema. */
async function scratchClient(schema?: string): Promise<{ client: pg.Client; schema: string }> {
  const name = schema ?? `migrate_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const connected = await client();
  if (schema === undefined) {
    await connected.query(`CREATE SCHEMA ${name}`);
    schemas.push(name);
  }
  await connected.query(`SET search_path TO ${name}`);
  return { client: connected, schema: name };
}

const widgets: Migration[] = [
  { version: 1, name: 'widgets', sql: 'CREATE TABLE widgets (id int PRIMARY KEY);' },
  { version: 2, name: 'widget_color', sql: "ALTER TABLE widgets ADD COLUMN color text NOT NULL DEFAULT 'red';" },
];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.end()));
});

afterAll(async () => {
  const admin = await client();
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  clients.length = 0;
});

describe('applyMigrations', () => {
  it('applies pending migrations in order, then nothing on the next run', async () => {
    const { client: c } = await scratchClient();
    const shuffled = [widgets[1], widgets[0]] as Migration[];
    expect(await applyMigrations(c, shuffled)).toEqual({ applied: ['0001_widgets.sql', '0002_widget_color.sql'] });
    expect(await applyMigrations(c, shuffled)).toEqual({ applied: [] });
    const { rows } = await c.query('SELECT version, name, checksum FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => [r.version, r.name])).toEqual([
      [1, 'widgets'],
      [2, 'widget_color'],
    ]);
    for (const row of rows) expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
    await c.query('INSERT INTO widgets (id) VALUES (1)');
    expect((await c.query('SELECT color FROM widgets')).rows).toEqual([{ color: 'red' }]);
  });

  it('works through the Neon driver Client over the WebSocket tunnel too', async () => {
    const { schema } = await scratchClient();
    let proxy: NeonProxy | undefined;
    const pool = createPool(
      { databaseUrl, neonLocalProxyUrl: (proxy = await startNeonProxy({ databaseUrl })).url },
      {
        webSocketConstructor: WebSocket,
      },
    );
    try {
      const neonClient = await pool.connect();
      try {
        await neonClient.query(`SET search_path TO ${schema}`);
        expect(await applyMigrations(neonClient, widgets)).toEqual({
          applied: ['0001_widgets.sql', '0002_widget_color.sql'],
        });
        expect(await applyMigrations(neonClient, widgets)).toEqual({ applied: [] });
      } finally {
        neonClient.release();
      }
    } finally {
      await pool.end();
      await proxy.close();
    }
  });

  it('refuses to run when an applied migration was edited, naming the file', async () => {
    const { client: c } = await scratchClient();
    await applyMigrations(c, widgets);
    const edited: Migration[] = [
      { ...(widgets[0] as Migration), sql: 'CREATE TABLE widgets (id bigint PRIMARY KEY);' },
      widgets[1] as Migration,
      { version: 3, name: 'gadgets', sql: 'CREATE TABLE gadgets (id int);' },
    ];
    await expect(applyMigrations(c, edited)).rejects.toThrow(/0001_widgets\.sql was edited/);
    // Nothing new is applied on a refused run.
    expect((await c.query("SELECT to_regclass('gadgets') AS t")).rows).toEqual([{ t: null }]);
    // A CRLF checkout of the same file is not an edit.
    const crlf = widgets.map((m) => ({ ...m, sql: m.sql.replace(/;$/, ';\r\n') }));
    const lf = widgets.map((m) => ({ ...m, sql: m.sql.replace(/;$/, ';\n') }));
    const { client: other } = await scratchClient();
    await applyMigrations(other, lf);
    expect(await applyMigrations(other, crlf)).toEqual({ applied: [] });
  });

  it('rolls back a failing migration and records only the ones before it', async () => {
    const { client: c } = await scratchClient();
    const failing: Migration[] = [
      widgets[0] as Migration,
      { version: 2, name: 'broken', sql: 'CREATE TABLE half (id int); SELECT 1/0;' },
      { version: 3, name: 'after', sql: 'CREATE TABLE after_broken (id int);' },
    ];
    await expect(applyMigrations(c, failing)).rejects.toThrow(/0002_broken\.sql failed: division by zero/);
    expect((await c.query('SELECT version FROM schema_migrations')).rows).toEqual([{ version: 1 }]);
    expect((await c.query("SELECT to_regclass('half') AS a, to_regclass('after_broken') AS b")).rows).toEqual([{ a: null, b: null }]);
  });

  it('applies each migration once when two runners start together', async () => {
    const { client: first, schema } = await scratchClient();
    const { client: second } = await scratchClient(schema);
    const slow: Migration[] = [
      { version: 1, name: 'slow', sql: 'SELECT pg_sleep(0.3); CREATE TABLE counted (id int);' },
      { version: 2, name: 'counted_row', sql: 'INSERT INTO counted VALUES (1);' },
    ];
    const [a, b] = await Promise.all([applyMigrations(first, slow), applyMigrations(second, slow)]);
    expect([...a.applied, ...b.applied].sort()).toEqual(['0001_slow.sql', '0002_counted_row.sql']);
    expect((await first.query('SELECT count(*)::int AS n FROM counted')).rows).toEqual([{ n: 1 }]);
    expect((await first.query('SELECT count(*)::int AS n FROM schema_migrations')).rows).toEqual([{ n: 2 }]);
  });

  it('refuses two migrations with one version', async () => {
    const { client: c } = await scratchClient();
    await expect(applyMigrations(c, [widgets[0] as Migration, { version: 1, name: 'again', sql: 'SELECT 1' }])).rejects.toThrow(
      /share version 1/,
    );
  });
});

describe('migrations on disk', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runstate-migrations-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function folder(files: Record<string, string>): Promise<string> {
    const path = await mkdtemp(join(dir, 'case-'));
    for (const [name, sql] of Object.entries(files)) await writeFile(join(path, name), sql);
    return path;
  }

  it("loads the repository's migrations numbered from 0001 without gaps", async () => {
    const migrations = await loadMigrationsFromDisk();
    expect(migrations.length).toBeGreaterThanOrEqual(2);
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
    expect(migrations[0]?.name).toBe('core');
    expect(migrations[0]?.sql).toContain('CREATE TABLE organizations');
  });

  it('finds the test database already migrated from these files', async () => {
    const c = await client();
    expect(await applyMigrationsFromDisk(c)).toEqual({ applied: [] });
    const onDisk = await loadMigrationsFromDisk();
    const { rows } = await c.query('SELECT version, name FROM public.schema_migrations ORDER BY version');
    expect(rows).toEqual(onDisk.map((m) => ({ version: m.version, name: m.name })));
  });

  it('sorts by number and ignores files that are not .sql', async () => {
    const path = await folder({ '0002_b.sql': 'SELECT 2', '0001_a.sql': 'SELECT 1', 'README.md': '# notes' });
    expect((await loadMigrationsFromDisk(path)).map((m) => [m.version, m.name, m.sql])).toEqual([
      [1, 'a', 'SELECT 1'],
      [2, 'b', 'SELECT 2'],
    ]);
  });

  it('refuses gaps, duplicate numbers and misnamed files', async () => {
    await expect(loadMigrationsFromDisk(await folder({ '0001_a.sql': '', '0003_c.sql': '' }))).rejects.toThrow(/0003_c\.sql leaves a gap/);
    await expect(loadMigrationsFromDisk(await folder({ '0002_b.sql': '' }))).rejects.toThrow(/gap/);
    await expect(loadMigrationsFromDisk(await folder({ '0001_a.sql': '', '0001_b.sql': '' }))).rejects.toThrow(/share version 1/);
    await expect(loadMigrationsFromDisk(await folder({ '1_a.sql': '' }))).rejects.toThrow(/1_a\.sql is not named/);
  });
});

describe('the core schema', () => {
  // Each check runs in a transaction that is rolled back, leaving the shared database as it was.
  async function rejectsWith(code: string, statements: [string, unknown[]][]): Promise<void> {
    const c = await client();
    await c.query('BEGIN');
    try {
      let failure: unknown;
      for (const [text, params] of statements) {
        try {
          await c.query(text, params);
        } catch (error) {
          failure = error;
          break;
        }
      }
      expect(failure).toMatchObject({ code });
    } finally {
      await c.query('ROLLBACK');
    }
  }

  const org = randomUUID();
  const otherOrg = randomUUID();
  const location = randomUUID();
  const user = randomUUID();
  const setup: [string, unknown[]][] = [
    ['INSERT INTO organizations (id, name) VALUES ($1, $2), ($3, $4)', [org, 'Org', otherOrg, 'Other']],
    ['INSERT INTO locations (id, organization_id, name) VALUES ($1, $2, $3)', [location, org, 'Main']],
    ['INSERT INTO users (id, email) VALUES ($1, $2)', [user, `${user}@example.com`]],
  ];

  it('stores emails lowercase only', async () => {
    await rejectsWith('23514', [['INSERT INTO users (id, email) VALUES ($1, $2)', [randomUUID(), 'Mixed@Example.com']]]);
  });

  it('allows one organisation-wide role per user and organisation', async () => {
    const grant = 'INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, $4, $5)';
    await rejectsWith('23505', [
      ...setup,
      [grant, [randomUUID(), user, org, null, 'Viewer']],
      [grant, [randomUUID(), user, org, location, 'Accountant']],
      [grant, [randomUUID(), user, org, null, 'Accountant']],
    ]);
  });

  it('refuses unknown role codes and a location of another organisation', async () => {
    const grant = 'INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, $4, $5)';
    await rejectsWith('23514', [...setup, [grant, [randomUUID(), user, org, null, 'Owner']]]);
    await rejectsWith('23503', [...setup, [grant, [randomUUID(), user, otherOrg, location, 'Viewer']]]);
  });
});
