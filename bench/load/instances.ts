// Runs the load callers on several app instances, each a worker thread with its own app and clients, so a busy app
// event loop does not also hold the proxies' (they stay on the main thread) and the two cores both work.
import { Worker } from 'node:worker_threads';
import type { MixName } from '../mix.ts';
import type { DriveResult, KindFigures } from './driver.ts';
import type { InstanceData, InstanceMessage } from './instance.ts';

export interface InstanceFleet {
  /** Resolves once every instance has warmed up. */
  ready: Promise<void>;
  /** Drives all instances for `durationMs` at once and merges their figures. */
  run(durationMs: number): Promise<DriveResult>;
  close(): Promise<void>;
}

const BOOT = new URL('./instance-boot.mjs', import.meta.url);

/** `shares[i]` is instance i's data; the sessions and invites of each are its own, the organisations everyone's. */
export function startInstances(shares: InstanceData[]): InstanceFleet {
  const workers = shares.map((data) => new Worker(BOOT, { workerData: data }));
  const next = (worker: Worker) =>
    new Promise<InstanceMessage>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  const ready = Promise.all(workers.map(next)).then(() => undefined);
  return {
    ready,
    async run(durationMs) {
      const answers = workers.map(next);
      for (const worker of workers) worker.postMessage({ durationMs });
      const results = (await Promise.all(answers)).map((answer) => {
        if (!('result' in answer)) throw new Error('a load instance answered out of turn');
        return answer.result;
      });
      return merge(results);
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}

function merge(results: DriveResult[]): DriveResult {
  const kinds = new Map<MixName, KindFigures>();
  const failureKinds = new Map<string, number>();
  for (const result of results) {
    for (const [name, figures] of result.kinds) {
      const merged = kinds.get(name) ?? { latencies: [], failures: 0 };
      for (const latency of figures.latencies) merged.latencies.push(latency);
      merged.failures += figures.failures;
      kinds.set(name, merged);
    }
    for (const [kind, count] of result.failureKinds) failureKinds.set(kind, (failureKinds.get(kind) ?? 0) + count);
  }
  return {
    kinds,
    failureKinds,
    wallMs: Math.max(...results.map((result) => result.wallMs)),
    eventLoopBusy: results.reduce((sum, result) => sum + result.eventLoopBusy, 0) / results.length,
  };
}
