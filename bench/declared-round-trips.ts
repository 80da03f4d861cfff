// Measured round trips against the ones an operation declares (`roundTrips` in bench/operation.ts), which the docs
// quote: a difference means the code or the declaration (and so the docs) is wrong.
import type { DeclaredRoundTrips, OperationBench, OperationResult } from './operation.ts';

const STORES = [
  ['redis', 'redisRoundTrips'],
  ['revocation', 'revocationRoundTrips'],
  ['pg', 'pgRoundTrips'],
] as const satisfies ReadonlyArray<readonly [keyof DeclaredRoundTrips, keyof OperationResult]>;

/**
 * One line per store whose measured round trips per call, rounded, differ from the declared: rounded, because the
 * revocation clock's read (at most once a second per isolate, docs/design/revocation.md) and a repair lock's retry add
 * a fraction to some calls' counts without being the operation's.
 */
export function roundTripDifferences(bench: OperationBench, result: OperationResult): string[] {
  const declared = bench.roundTrips;
  if (declared === undefined) return [];
  return STORES.filter(([store, figure]) => Math.round(result[figure]) !== declared[store]).map(
    ([store, figure]) => `${bench.name}: ${store} round trips ${result[figure].toFixed(2)} per call, declared ${declared[store]}`,
  );
}
