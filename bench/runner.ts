// Runs one operation bench (warm-up, then N sequential timed calls) or one burst (its calls a crowd at a time), with the counters around them.
import { mapConcurrently } from './concurrently.ts';
import type { BurstBench, BurstResult, OperationBench, OperationResult } from './operation.ts';
import type { BenchStack } from './stack.ts';

export interface RunOptions {
  /** Timed calls. */
  calls: number;
  /** Untimed, uncounted calls first: the cold EVALSHA→NOSCRIPT→EVAL, JIT and connection set-up land here. */
  warmup: number;
}

export async function runOperation(stack: BenchStack, bench: OperationBench, options: RunOptions): Promise<OperationResult> {
  const { calls, warmup } = options;
  const call = await bench.prepare(stack, warmup + calls);
  const timings = new Float64Array(calls);
  let wallMs: number;
  let cpuMs: number;
  let trips: ReturnType<BenchStack['counters']['read']>;
  try {
    for (let i = 0; i < warmup; i += 1) await call(i);
    stack.counters.reset();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < calls; i += 1) {
      const before = performance.now();
      await call(warmup + i);
      timings[i] = performance.now() - before;
    }
    wallMs = performance.now() - started;
    cpuMs = cpuMsSince(cpuBefore);
    trips = stack.counters.read();
  } finally {
    await call.finish?.();
  }

  return perCall(bench.name, trips, timings, wallMs, cpuMs);
}

export async function runBurst(stack: BenchStack, bench: BurstBench): Promise<BurstResult> {
  const { calls, concurrency } = bench;
  const call = await bench.prepare(stack);
  const timings = new Float64Array(calls);
  let wallMs: number;
  let cpuMs: number;
  let trips: ReturnType<BenchStack['counters']['read']>;
  try {
    stack.counters.reset();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await mapConcurrently(calls, concurrency, async (i) => {
      const before = performance.now();
      await call(i);
      timings[i] = performance.now() - before;
    });
    wallMs = performance.now() - started;
    cpuMs = cpuMsSince(cpuBefore);
    trips = stack.counters.read();
  } finally {
    await call.finish?.();
  }

  return { ...perCall(bench.name, trips, timings, wallMs, cpuMs), concurrency, totalUpstreamLogins: trips.upstreamLogins, wallMs };
}

/** The per-call figures of a timed set of calls: round trips and logins divided by the calls, percentiles, rate. */
/**
 * This process's CPU (user + system) since `before`, in ms: the app, and the proxies and fakes that share the process,
 * so figures compare operations of one run, not runtimes (bench/README.md#how-it-measures).
 */
function cpuMsSince(before: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

function perCall(
  name: string,
  trips: ReturnType<BenchStack['counters']['read']>,
  timings: Float64Array,
  wallMs: number,
  cpuMs: number,
): OperationResult {
  const calls = timings.length;
  timings.sort();
  return {
    name,
    calls,
    redisRoundTrips: trips.redis / calls,
    revocationRoundTrips: trips.revocation / calls,
    pgRoundTrips: trips.pg / calls,
    redisCommands: trips.redisCommands / calls,
    revocationCommands: trips.revocationCommands / calls,
    pgStatements: trips.pgStatements / calls,
    upstreamLogins: trips.upstreamLogins / calls,
    p50Ms: percentile(timings, 50),
    p99Ms: percentile(timings, 99),
    perSecond: calls / (wallMs / 1000),
    cpuMsPerCall: cpuMs / calls,
  };
}

/** Nearest-rank percentile of ascending samples. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}
