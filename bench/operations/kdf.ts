// The password KDF alone on this machine: ms per hashPassword, per verifyPassword of a stored hash, and per decoy verification.
import { hashPassword, PBKDF2_ITERATIONS, verifyPassword } from '../../lib/auth/password.ts';
import type { FigureBench } from '../operation.ts';
import { percentile } from '../runner.ts';

const SAMPLES = 100;
const WARMUP = 5;

type Timing = { p50Ms: number; meanMs: number; maxMs: number };

/** The steps one after another in each round (so a change in the machine's load reaches all of them alike), timed apart. */
async function interleaved(steps: Array<() => Promise<unknown>>): Promise<Timing[]> {
  for (let i = 0; i < WARMUP; i += 1) for (const step of steps) await step();
  const samples = steps.map(() => new Float64Array(SAMPLES));
  for (let i = 0; i < SAMPLES; i += 1) {
    for (const [j, step] of steps.entries()) {
      const started = performance.now();
      await step();
      (samples[j] as Float64Array)[i] = performance.now() - started;
    }
  }
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return samples.map((timings) => {
    timings.sort();
    return {
      p50Ms: round(percentile(timings, 50)),
      meanMs: round(timings.reduce((a, b) => a + b, 0) / SAMPLES),
      maxMs: round(timings[SAMPLES - 1] as number),
    };
  });
}

export const kdfBench: FigureBench = {
  name: 'auth.kdf',
  describe:
    `PBKDF2-SHA256 at ${PBKDF2_ITERATIONS} iterations through WebCrypto, ${SAMPLES} rounds of one call each, in turn, after ${WARMUP} untimed: ` +
    'hashPassword, verifyPassword of a stored hash (a known user), verifyPassword with no hash (the decoy an unknown user costs)',
  async measure() {
    const password = 'bench-kdf-password';
    const stored = await hashPassword(password);
    const [hash, verify, decoy] = (await interleaved([
      () => hashPassword(password),
      async () => {
        if (!(await verifyPassword(password, stored))) throw new Error('auth.kdf: the stored hash did not verify');
      },
      () => verifyPassword(password, null),
    ])) as [Timing, Timing, Timing];
    const figures = (prefix: string, t: Timing) => ({
      [`${prefix}P50Ms`]: t.p50Ms,
      [`${prefix}MeanMs`]: t.meanMs,
      [`${prefix}MaxMs`]: t.maxMs,
    });
    return [
      {
        name: 'auth.kdf',
        figures: {
          iterations: PBKDF2_ITERATIONS,
          samples: SAMPLES,
          ...figures('hash', hash),
          ...figures('verify', verify),
          ...figures('decoy', decoy),
        },
      },
    ];
  },
};
