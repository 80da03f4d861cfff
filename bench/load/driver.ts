// Drives the load: `callers` concurrent callers, each making its next call as soon as its last is answered, the kind
// of each call drawn by the mix's weights (or one kind throughout), until the time is up or the calls are made; per
// kind its latencies and failures.
import { performance as nodePerformance } from 'node:perf_hooks';
import { MIX, type MixName } from '../mix.ts';
import { failureKind, PoolEmpty } from './failure.ts';
import { LOAD_OPERATIONS, type LoadContext } from './operations.ts';

export interface KindFigures {
  /** Latencies (ms) of the calls answered as expected. */
  latencies: number[];
  failures: number;
}

export interface DriveResult {
  kinds: Map<MixName, KindFigures>;
  /** Failures by `operation: kind`, e.g. `invites.create: HTTP 429 RATE_LIMITED`. */
  failureKinds: Map<string, number>;
  /** From the first call to the last answer (the calls in flight when time is up are waited for). */
  wallMs: number;
  /** Share of the wall time the caller's event loop was busy (0–1); the mean over instances once merged. */
  eventLoopBusy: number;
}

/** What one drive does: the mix (or `kind` alone) for `durationMs`, or until `calls` calls were started. */
export interface DriveOptions {
  callers: number;
  durationMs?: number;
  calls?: number;
  kind?: MixName;
}

/** Picks a kind with probability weight ÷ total. */
function drawKind(): MixName {
  const total = MIX.reduce((sum, entry) => sum + entry.weight, 0);
  let point = Math.random() * total;
  for (const entry of MIX) {
    point -= entry.weight;
    if (point < 0) return entry.name;
  }
  return (MIX.at(-1) as (typeof MIX)[number]).name;
}

export async function drive(context: LoadContext, options: DriveOptions): Promise<DriveResult> {
  const kinds = new Map<MixName, KindFigures>(MIX.map((entry) => [entry.name, { latencies: [], failures: 0 }]));
  const failureKinds = new Map<string, number>();
  const started = performance.now();
  const loopBefore = nodePerformance.eventLoopUtilization();
  const deadline = started + (options.durationMs ?? Number.POSITIVE_INFINITY);
  let callsLeft = options.calls ?? Number.POSITIVE_INFINITY;
  const caller = async () => {
    while (performance.now() < deadline && callsLeft > 0) {
      callsLeft -= 1;
      const kind = options.kind ?? drawKind();
      const figures = kinds.get(kind) as KindFigures;
      const before = performance.now();
      try {
        await LOAD_OPERATIONS[kind](context);
        figures.latencies.push(performance.now() - before);
      } catch (error) {
        if (error instanceof PoolEmpty && options.kind !== undefined) return;
        figures.failures += 1;
        const key = `${kind}: ${failureKind(error)}`;
        failureKinds.set(key, (failureKinds.get(key) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: options.callers }, caller));
  const eventLoopBusy = nodePerformance.eventLoopUtilization(loopBefore).utilization;
  return { kinds, failureKinds, wallMs: performance.now() - started, eventLoopBusy };
}
