// Runs the load callers on several app instances, each a child process with its own app and clients, so a busy app
// event loop does not also hold the proxies' (they stay in the bench's process), the two cores both work, and each
// instance's CPU is its process's own (`process.cpuUsage()`; Node 20 has no CPU clock per worker thread).
import { fork, type ChildProcess } from 'node:child_process';
import type { MixName } from '../mix.ts';
import type { BucketTimes } from './cpu-profile.ts';
import type { DriveResult, KindFigures } from './driver.ts';
import type { InstanceData, InstanceMessage, Phase, PhaseResult } from './instance.ts';

export interface InstanceFleet {
  /** Resolves once every instance has built its app. */
  ready: Promise<void>;
  /** Runs one phase on all instances at once and merges their figures; `cpuMicros` is their sum. */
  run(phase: Phase): Promise<PhaseResult>;
  close(): Promise<void>;
}

const BOOT = new URL('./instance-boot.mjs', import.meta.url);

/** `shares[i]` is instance i's data; the sessions and invites of each are its own, the organisations everyone's. */
export function startInstances(shares: InstanceData[]): InstanceFleet {
  // `advanced` serialisation carries Maps; no inherited execArgv: the boot file registers tsx itself.
  const children = shares.map((data) => {
    const child = fork(BOOT, [], { serialization: 'advanced', execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.send(data);
    return child;
  });
  const next = (child: ChildProcess) =>
    new Promise<InstanceMessage>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`a load instance exited (${code ?? 'signal'}) before answering`));
      child.once('exit', onExit);
      child.once('message', (message: InstanceMessage) => {
        child.off('exit', onExit);
        resolve(message);
      });
    });
  const ready = Promise.all(children.map(next)).then(() => undefined);
  return {
    ready,
    async run(phase) {
      const answers = children.map(next);
      for (const child of children) child.send(phase);
      const results = (await Promise.all(answers)).map((answer) => {
        if (!('result' in answer)) throw new Error('a load instance answered out of turn');
        return answer.result;
      });
      return merge(results);
    },
    async close() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill();
            }),
        ),
      );
    },
  };
}

function merge(results: PhaseResult[]): PhaseResult {
  const kinds = new Map<MixName, KindFigures>();
  const failureKinds = new Map<string, number>();
  let buckets: BucketTimes | undefined;
  for (const { drive: result, buckets: own } of results) {
    for (const [name, figures] of result.kinds) {
      const merged = kinds.get(name) ?? { latencies: [], failures: 0 };
      for (const latency of figures.latencies) merged.latencies.push(latency);
      merged.failures += figures.failures;
      kinds.set(name, merged);
    }
    for (const [kind, count] of result.failureKinds) failureKinds.set(kind, (failureKinds.get(kind) ?? 0) + count);
    if (own !== undefined) buckets = addBuckets(buckets ?? {}, own);
  }
  const drive: DriveResult = {
    kinds,
    failureKinds,
    wallMs: Math.max(...results.map((result) => result.drive.wallMs)),
    eventLoopBusy: results.reduce((sum, result) => sum + result.drive.eventLoopBusy, 0) / results.length,
  };
  const cpuMicros = results.reduce((sum, result) => sum + result.cpuMicros, 0);
  return buckets === undefined ? { drive, cpuMicros } : { drive, cpuMicros, buckets };
}

/** Drive results of several phases as one: figures summed, wall times added (the phases ran one after another). */
export function sequence(results: PhaseResult[]): PhaseResult {
  const merged = merge(results);
  merged.drive.wallMs = results.reduce((sum, result) => sum + result.drive.wallMs, 0);
  return merged;
}

function addBuckets(a: BucketTimes, b: BucketTimes): BucketTimes {
  const sum: BucketTimes = { ...a };
  for (const [bucket, ms] of Object.entries(b) as Array<[keyof BucketTimes, number]>) sum[bucket] = (sum[bucket] ?? 0) + ms;
  return sum;
}
