// The round trips the docs quote (`roundTrips` in bench/operations, written into the docs by `npm run docs:generate`)
// are what the operations cost: each declared operation runs through the bench's own stack against real Redis and
// PostgreSQL, a few calls after its warm-up, counted at the proxies as `npm run bench` counts them.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { roundTripDifferences } from '../../bench/declared-round-trips.ts';
import { operationBenches } from '../../bench/operations/index.ts';
import { runOperation } from '../../bench/runner.ts';
import { startBenchStack, type BenchStack } from '../../bench/stack.ts';
import { createTeardown } from '../../local/stack/teardown.ts';

const declared = operationBenches.filter((bench) => bench.roundTrips !== undefined);
const teardown = createTeardown();
let stack: BenchStack;

beforeAll(async () => {
  stack = await startBenchStack(teardown, { REDIS_URL: inject('redisUrl'), DATABASE_URL: inject('databaseUrl') });
});

afterAll(async () => {
  await teardown.run();
});

describe('the round trips the docs quote', () => {
  it('are declared for the operations the docs name', () => {
    expect(declared.map((bench) => bench.name)).toEqual(expect.arrayContaining(['mfa.verify', 'mfa.recover', 'passkey.authenticate']));
  });

  it.each(declared.map((bench) => [bench.name, bench] as const))('%s costs what it declares', async (_name, bench) => {
    const result = await runOperation(stack, bench, { calls: 10, warmup: 3 });
    expect(roundTripDifferences(bench, result)).toEqual([]);
  });
});
