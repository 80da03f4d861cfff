// dbCall: a call that outlives its kind's deadline is "unavailable", even one that ignores the signal; PostgreSQL's own answers pass through.
import { describe, expect, it } from 'vitest';
import { PG_CALL_POLICY } from '../../lib/pg/call-policy.ts';
import { dbCall, DatabaseUnavailableError } from '../../lib/pg/unavailable.ts';

describe('dbCall', () => {
  it('gives up at the deadline of its kind with DatabaseUnavailableError, and the call saw its signal abort', async () => {
    let seen: AbortSignal | undefined;
    const started = performance.now();
    const never = dbCall('compensation', 'test.never', (signal) => {
      seen = signal;
      return new Promise<never>(() => undefined);
    });
    await expect(never).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(PG_CALL_POLICY.compensation.timeoutMs - 50);
    expect(seen?.aborted).toBe(true);
  });

  it('passes an error PostgreSQL answered (a SQLSTATE outside 08/57P) through unchanged', async () => {
    const violation = Object.assign(new Error('duplicate key'), { code: '23505' });
    await expect(dbCall('commit', 'test.unique', () => Promise.reject(violation))).rejects.toBe(violation);
    const shutdown = Object.assign(new Error('admin shutdown'), { code: '57P01' });
    await expect(dbCall('read', 'test.shutdown', () => Promise.reject(shutdown))).rejects.toBeInstanceOf(DatabaseUnavailableError);
  });
});
