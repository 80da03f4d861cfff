// The bench's cost figures and load options: the mix is whole and priced by benches that exist, a command costs what
// Upstash pay-as-you-go charges, the mix row weighs each operation by its weight, and --load parses as documented.
import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '../../bench/args.ts';
import { costJson } from '../../bench/cost-report.ts';
import { MIX } from '../../bench/mix.ts';
import type { OperationResult } from '../../bench/operation.ts';
import { operationBenches } from '../../bench/operations/index.ts';
import { usdPerMillionCalls } from '../../bench/pricing.ts';

const result = (name: string, redisCommands: number, revocationCommands: number, pgStatements: number): OperationResult => ({
  name,
  calls: 1,
  redisRoundTrips: 0,
  revocationRoundTrips: 0,
  pgRoundTrips: 0,
  redisCommands,
  revocationCommands,
  pgStatements,
  upstreamLogins: 0,
  p50Ms: 0,
  p99Ms: 0,
  perSecond: 0,
  cpuMsPerCall: 0,
});

describe('the cost table', () => {
  it('has a mix of weights out of 100, each priced by an operation bench that exists', () => {
    expect(MIX.reduce((sum, entry) => sum + entry.weight, 0)).toBe(100);
    const names = new Set(operationBenches.map((bench) => bench.name));
    expect(MIX.filter((entry) => !names.has(entry.bench))).toEqual([]);
  });

  it('prices 100 000 commands at $0.20, so one command per call is $2 per million calls', () => {
    expect(usdPerMillionCalls(1)).toBeCloseTo(2, 10);
    expect(usdPerMillionCalls(0.5) * 10).toBeCloseTo(10, 10);
  });

  it('weighs the mix by its weights, re-weighting over the benches that ran and naming the rest', () => {
    // Only the two heaviest entries ran (20 and 20): the mix is their plain mean.
    const [first, second] = MIX;
    const cost = costJson([result(first!.bench, 1, 3, 0), result(second!.bench, 1, 1, 2)]) as {
      mix: { billedCommands: number; pgStatements: number; usdPerMillionCalls: number; missing: string[] };
    };
    expect(first!.weight).toBe(second!.weight);
    expect(cost.mix.billedCommands).toBe(3);
    expect(cost.mix.pgStatements).toBe(1);
    expect(cost.mix.usdPerMillionCalls).toBe(6);
    expect(cost.mix.missing).toHaveLength(MIX.length - 2);
  });
});

describe('--load', () => {
  it('defaults to 64 callers on 4 instances for 30 s over 1 000 organisations and 10 000 users, no baseline', () => {
    expect(parseBenchArgs(['--load', '--latency-ms', '5']).load).toEqual({
      durationS: 30,
      callers: 64,
      instances: 4,
      organizations: 1_000,
      users: 10_000,
      opCalls: 200,
      profileS: 5,
      latencyMs: 5,
      baseline: undefined,
      profileDir: undefined,
    });
    expect(parseBenchArgs([]).load).toBeUndefined();
  });

  it('takes its options in both spellings and refuses them without --load or out of range', () => {
    expect(parseBenchArgs(['--load', '--duration-s=10', '--callers', '8']).load).toMatchObject({ durationS: 10, callers: 8 });
    expect(() => parseBenchArgs(['--duration-s', '10'])).toThrow('--duration-s goes with --load');
    expect(() => parseBenchArgs(['--load', '--only', 'auth'])).toThrow('no --only or --calls');
    expect(() => parseBenchArgs(['--load', '--duration-s', '3600'])).toThrow('at most');
    expect(() => parseBenchArgs(['--load', '--organizations', '10', '--users', '10'])).toThrow('at least twice');
    expect(() => parseBenchArgs(['--load', '--callers', '0'])).toThrow('positive whole number');
  });

  it('takes a baseline ref, only with --load', () => {
    expect(parseBenchArgs(['--load', '--baseline', 'main']).load).toMatchObject({ baseline: 'main' });
    expect(parseBenchArgs(['--load', '--baseline=405d5aa', '--op-calls', '50']).load).toMatchObject({ baseline: '405d5aa', opCalls: 50 });
    expect(() => parseBenchArgs(['--baseline', 'main'])).toThrow('--baseline goes with --load');
    expect(() => parseBenchArgs(['--load', '--baseline'])).toThrow('needs a git ref');
  });
});
