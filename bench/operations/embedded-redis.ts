// The invite operations on the embedded Redis engine (npm start's default without a redis-server) next to the same on a
// real redis-server, in one run: calls per second and p50 of each, and what the engine costs.
import { startEmbeddedRedis } from '../../local/processes/embedded-redis.ts';
import { WARMUP_CALLS } from '../args.ts';
import type { FigureBench, FigureResult, OperationBench } from '../operation.ts';
import { runOperation } from '../runner.ts';
import { startBenchStack } from '../stack.ts';
import { inviteBenches } from './invites.ts';
import { redisPing } from './redis-ping.ts';

/** Timed calls per operation and engine: enough for a stable p50, few enough to keep the pair under a minute. */
const CALLS = 500;
const BENCHES: OperationBench[] = [redisPing, ...inviteBenches];

export const embeddedRedisBench: FigureBench = {
  name: 'embedded-redis',
  describe:
    `redis.ping and the four invite operations, ${CALLS} timed calls each after ${WARMUP_CALLS} warm-up, on a bench stack on ` +
    'a real redis-server and on one on the embedded engine (js-redis-server, in this process), one operation on each in ' +
    'turn: calls/s and p50 ms of each, embedded ÷ real calls/s, and the main-store round trips per call (the same on both)',
  async measure(teardown): Promise<FigureResult[]> {
    const real = await startBenchStack(teardown, { DATABASE_URL: process.env.DATABASE_URL });
    const engine = await startEmbeddedRedis();
    teardown.add('embedded Redis', engine.stop);
    const embedded = await startBenchStack(teardown, { REDIS_URL: engine.url, DATABASE_URL: process.env.DATABASE_URL });
    const results: FigureResult[] = [];
    for (const bench of BENCHES) {
      process.stderr.write(`bench: embedded-redis ${bench.name} …\n`);
      const onReal = await runOperation(real, bench, { calls: CALLS, warmup: WARMUP_CALLS });
      const onEmbedded = await runOperation(embedded, bench, { calls: CALLS, warmup: WARMUP_CALLS });
      if (onReal.redisRoundTrips !== onEmbedded.redisRoundTrips) {
        throw new Error(`embedded-redis ${bench.name}: ${onEmbedded.redisRoundTrips} round trips against ${onReal.redisRoundTrips}`);
      }
      results.push({
        name: `embedded-redis ${bench.name}`,
        figures: {
          realPerSecond: Math.round(onReal.perSecond),
          embeddedPerSecond: Math.round(onEmbedded.perSecond),
          ratio: round(onEmbedded.perSecond / onReal.perSecond, 2),
          realP50Ms: round(onReal.p50Ms, 3),
          embeddedP50Ms: round(onEmbedded.p50Ms, 3),
          redisRoundTrips: onReal.redisRoundTrips,
        },
      });
    }
    return results;
  },
};

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
