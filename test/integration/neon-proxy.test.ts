// The unmodified Neon driver reaches real PostgreSQL through the local Neon proxy: HTTP queries, batches, WebSocket pool, faults.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { neon, neonConfig } from '@neondatabase/serverless';
import WebSocket from 'ws';
import { createDb, createPool } from '../../lib/pg/index.ts';
import type { Db } from '../../lib/pg/index.ts';
import { localProxyFetchOptions } from '../../lib/pg/local-proxy.ts';
import { dbCall, DatabaseUnavailableError } from '../../lib/pg/unavailable.ts';
import { isLoopbackHost, startNeonProxy } from '../../local/emulators/neon/index.ts';
import type { NeonProxy } from '../../local/emulators/neon/index.ts';

const databaseUrl = inject('databaseUrl');
const schema = `neon_proxy_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

let proxy: NeonProxy;
let db: Db;

beforeAll(async () => {
  proxy = await startNeonProxy({ databaseUrl });
  db = createDb({ databaseUrl, neonLocalProxyUrl: proxy.url });
  await db.query(`CREATE SCHEMA ${schema}`);
  await db.query(`CREATE TABLE ${schema}.items (id uuid PRIMARY KEY, n bigint, tags text[], data jsonb, at timestamptz, flag bool)`);
  await db.query(`CREATE TABLE ${schema}.accounts (id int PRIMARY KEY, balance int NOT NULL)`);
});

afterAll(async () => {
  proxy.faults.clear();
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await proxy.close();
});

function wsPool() {
  return createPool({ databaseUrl, neonLocalProxyUrl: proxy.url }, { webSocketConstructor: WebSocket });
}

describe('neon() over the SQL-over-HTTP endpoint', () => {
  it('sends parameters and returns values parsed by the driver by type', async () => {
    const id = randomUUID();
    const at = new Date('2026-01-02T03:04:05.678Z');
    const [row] = await db.query(
      `SELECT $1::int AS i, $2::bigint AS b, $3::text AS t, $4::uuid AS u, $5::bool AS yes, $6::bool AS no,
              $7::jsonb AS j, $8::timestamptz AS ts, $9::text AS nothing, $10::int[] AS ints, $11::text[] AS texts`,
      [
        42,
        '9007199254740993',
        'héllo, "wörld" \\ ok',
        id,
        true,
        false,
        { nested: { list: [1, 'x', null] }, empty: {} },
        at,
        null,
        [1, 2, 3],
        ['a,b', 'c"d', 'e\\f', null, '{}'],
      ],
    );
    expect(row).toEqual({
      i: 42,
      b: '9007199254740993',
      t: 'héllo, "wörld" \\ ok',
      u: id,
      yes: true,
      no: false,
      j: { nested: { list: [1, 'x', null] }, empty: {} },
      ts: at,
      nothing: null,
      ints: [1, 2, 3],
      texts: ['a,b', 'c"d', 'e\\f', null, '{}'],
    });
    expect(row?.ts).toBeInstanceOf(Date);
  });

  it('round-trips typed columns through a table', async () => {
    const id = randomUUID();
    const at = new Date('2025-12-31T23:59:59.999Z');
    await db.query(`INSERT INTO ${schema}.items (id, n, tags, data, at, flag) VALUES ($1, $2, $3, $4, $5, $6)`, [
      id,
      -12345678901234,
      [],
      // A JS array parameter is a Postgres array literal (pg semantics); a JSON array goes as JSON text.
      JSON.stringify([{ k: 'v' }]),
      at,
      false,
    ]);
    const rows = await db.query(`SELECT n, tags, data, at, flag FROM ${schema}.items WHERE id = $1`, [id]);
    expect(rows).toEqual([{ n: '-12345678901234', tags: [], data: [{ k: 'v' }], at, flag: false }]);
  });

  it('rejects several statements in one query, as Neon does', async () => {
    await expect(db.query('SELECT 1; SELECT 2')).rejects.toMatchObject({ code: '42601' });
  });

  it('surfaces a unique violation with its SQLSTATE and constraint', async () => {
    const id = randomUUID();
    await db.query(`INSERT INTO ${schema}.items (id) VALUES ($1)`, [id]);
    await expect(db.query(`INSERT INTO ${schema}.items (id) VALUES ($1)`, [id])).rejects.toMatchObject({
      code: '23505',
      constraint: 'items_pkey',
    });
  });
});

describe('transaction() batches', () => {
  it('runs every statement in one round trip and returns rows per statement', async () => {
    const first = randomUUID();
    const second = randomUUID();
    proxy.stats.reset();
    const results = await db.transaction([
      { text: `INSERT INTO ${schema}.items (id, n) VALUES ($1, 1) RETURNING id`, params: [first] },
      { text: `INSERT INTO ${schema}.items (id, n) VALUES ($1, 2) RETURNING id`, params: [second] },
      { text: `SELECT count(*)::int AS c FROM ${schema}.items WHERE id IN ($1, $2)`, params: [first, second] },
    ]);
    expect({ requests: proxy.stats.httpRequests, statements: proxy.stats.statements }).toEqual({ requests: 1, statements: 3 });
    expect(results).toEqual([[{ id: first }], [{ id: second }], [{ c: 2 }]]);
  });

  it('rolls back the first statement when the second fails', async () => {
    const kept = randomUUID();
    await db.query(`INSERT INTO ${schema}.items (id) VALUES ($1)`, [kept]);
    const fresh = randomUUID();
    await expect(
      db.transaction([
        { text: `INSERT INTO ${schema}.items (id) VALUES ($1)`, params: [fresh] },
        { text: `INSERT INTO ${schema}.items (id) VALUES ($1)`, params: [kept] },
      ]),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await db.query(`SELECT id FROM ${schema}.items WHERE id = $1`, [fresh])).toEqual([]);
  });

  it('honours the batch isolation level and read-only headers', async () => {
    const sql = neon(databaseUrl, { fetchOptions: localProxyFetchOptions(proxy.url, neonConfig) });
    const [levels] = await sql.transaction(
      [sql.query("SELECT current_setting('transaction_isolation') AS iso, current_setting('transaction_read_only') AS ro")],
      { isolationLevel: 'Serializable', readOnly: true },
    );
    expect(levels).toEqual([{ iso: 'serializable', ro: 'on' }]);
    await expect(
      sql.transaction([sql.query(`INSERT INTO ${schema}.items (id) VALUES ($1)`, [randomUUID()])], { readOnly: true }),
    ).rejects.toMatchObject({ code: '25006' });
  });
});

describe('WebSocket Pool through the tunnel', () => {
  it('holds a row lock across an interactive transaction', async () => {
    await db.query(`INSERT INTO ${schema}.accounts (id, balance) VALUES (1, 100)`);
    const pool = wsPool();
    try {
      const holder = await pool.connect();
      const other = await pool.connect();
      try {
        await holder.query('BEGIN');
        const locked = await holder.query(`SELECT balance FROM ${schema}.accounts WHERE id = 1 FOR UPDATE`);
        expect(locked.rows).toEqual([{ balance: 100 }]);
        // The lock is really held by the open transaction on the other side of the tunnel.
        await expect(other.query(`SELECT balance FROM ${schema}.accounts WHERE id = 1 FOR UPDATE NOWAIT`)).rejects.toMatchObject({
          code: '55P03',
        });
        await holder.query(`UPDATE ${schema}.accounts SET balance = $1 WHERE id = 1`, [locked.rows[0].balance - 30]);
        await holder.query('COMMIT');
        const after = await other.query(`SELECT balance FROM ${schema}.accounts WHERE id = 1 FOR UPDATE NOWAIT`);
        expect(after.rows).toEqual([{ balance: 70 }]);
      } finally {
        holder.release();
        other.release();
      }
    } finally {
      await pool.end();
    }
  });
});

describe('one target', () => {
  it('classifies addresses without DNS', () => {
    expect(['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', '::ffff:127.0.0.1'].every(isLoopbackHost)).toBe(true);
    expect(['10.0.0.1', '192.0.2.1', 'db.example.com', '::ffff:10.0.0.1', '127.0.0.1.nip.io'].some(isLoopbackHost)).toBe(false);
  });

  it('refuses a WebSocket tunnel to an address other than its PostgreSQL (a second loopback address here)', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${proxy.port}/v1?address=127.0.0.2:5432`);
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.on('open', () => reject(new Error('tunnel to another address was opened')));
      socket.on('error', () => undefined);
    });
    expect(status).toBe(403);
  });

  it('refuses an HTTP query for another database host', async () => {
    const remote = createDb({ databaseUrl: 'postgres://postgres@127.0.0.2:5432/test', neonLocalProxyUrl: proxy.url });
    await expect(remote.query('SELECT 1')).rejects.toThrow(/403/);
  });

  it('refuses a pool connection to another database host', async () => {
    const pool = createPool(
      { databaseUrl: 'postgres://postgres@127.0.0.2:5432/test', neonLocalProxyUrl: proxy.url },
      { webSocketConstructor: WebSocket },
    );
    pool.on('error', () => undefined);
    try {
      await expect(pool.query('SELECT 1')).rejects.toThrow();
    } finally {
      await pool.end();
    }
  });
});

describe('faults', () => {
  it('refuse makes HTTP queries and pool connections fail, and clearing it heals', async () => {
    proxy.faults.set({ refuse: true });
    try {
      await expect(db.query('SELECT 1 AS one')).rejects.toThrow(/Error connecting to database/);
      const pool = wsPool();
      pool.on('error', () => undefined);
      try {
        await expect(pool.query('SELECT 1')).rejects.toThrow();
      } finally {
        await pool.end();
      }
    } finally {
      proxy.faults.clear();
    }
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('delayMs delays the answer', async () => {
    proxy.faults.set({ delayMs: 250 });
    try {
      const started = performance.now();
      expect(await db.query('SELECT 2 AS two')).toEqual([{ two: 2 }]);
      expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    } finally {
      proxy.faults.clear();
    }
  });

  it('cutAfterCommit commits the batch, then cuts the client: the rows are there and dbCall says unavailable', async () => {
    proxy.stats.reset();
    proxy.faults.set({ cutAfterCommit: { matching: /INSERT INTO \S+\.accounts/, times: 1 } });
    const insert = (id: number) => ({ text: `INSERT INTO ${schema}.accounts (id, balance) VALUES ($1, 5)`, params: [id] });
    try {
      // A statement that does not match runs and answers as usual.
      expect(await db.query('SELECT 7 AS seven')).toEqual([{ seven: 7 }]);
      const lost = dbCall('commit', 'test.cut', (signal) => db.transaction([insert(1001), insert(1011)], { signal }));
      await expect(lost).rejects.toBeInstanceOf(DatabaseUnavailableError);
      // times: 1 — the next matching batch is answered.
      expect(await db.transaction([insert(1002)])).toEqual([[]]);
    } finally {
      proxy.faults.clear();
    }
    const rows = await db.query<{ id: number }>(`SELECT id FROM ${schema}.accounts WHERE id > 1000 AND id < 2000 ORDER BY id`);
    expect(rows.map((row) => row.id)).toEqual([1001, 1002, 1011]);
    expect(proxy.stats.cutReplies).toBe(1);
  });

  it('hang holds matching requests without running them; clearing it cuts them, and nothing was written', async () => {
    proxy.stats.reset();
    proxy.faults.set({ hang: { matching: /INSERT/ } });
    let settled = false;
    const held = db.query(`INSERT INTO ${schema}.accounts (id, balance) VALUES (2001, 1)`).finally(() => {
      settled = true;
    });
    held.catch(() => undefined);
    try {
      // A per-call signal aborts the driver's request itself (the deadline dbCall hands to every call).
      const aborted = db.query(`INSERT INTO ${schema}.accounts (id, balance) VALUES (2002, 1)`, [], { signal: AbortSignal.timeout(100) });
      await expect(aborted).rejects.toThrow(/Error connecting to database/);
      expect(await db.query('SELECT 8 AS eight')).toEqual([{ eight: 8 }]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false);
      expect(proxy.stats.heldRequests).toBe(2);
    } finally {
      proxy.faults.clear();
    }
    await expect(held).rejects.toThrow(/Error connecting to database/);
    expect(await db.query(`SELECT id FROM ${schema}.accounts WHERE id IN (2001, 2002)`)).toEqual([]);
  });

  it('counts requests and connections', async () => {
    proxy.stats.reset();
    await db.query('SELECT 1');
    await db.query('SELECT 2');
    const pool = wsPool();
    try {
      await pool.query('SELECT 3');
    } finally {
      await pool.end();
    }
    // The WebSocket's statement travels as wire protocol the proxy does not parse: only the two HTTP ones are counted.
    expect({ http: proxy.stats.httpRequests, ws: proxy.stats.wsConnections, statements: proxy.stats.statements }).toEqual({
      http: 2,
      ws: 1,
      statements: 2,
    });
  });
});
