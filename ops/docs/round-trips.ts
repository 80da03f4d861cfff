// The round trips per call the operations declare (`roundTrips` in bench/operations), as the docs quote them; the bench
// and test/integration/bench-round-trips.test.ts hold the declarations to what the operations measure.
import type { DeclaredRoundTrips } from '../../bench/operation.ts';
import { operationBenches } from '../../bench/operations/index.ts';
import type { FigureText } from './markers.ts';

const STORE_NAMES: Record<keyof DeclaredRoundTrips, string> = { redis: 'Redis', revocation: 'revocation', pg: 'PostgreSQL' };

const counted = (count: number, store: keyof DeclaredRoundTrips) => `${count} ${STORE_NAMES[store]} round trip${count === 1 ? '' : 's'}`;

/**
 * Per declared operation: `rt:<operation>:<store>` ("2 Redis round trips") for each store, and `rt:<operation>`
 * ("2 / 0 / 2": main store / revocation / PostgreSQL) for a table.
 */
export function roundTripFigures(): Array<[string, FigureText]> {
  return operationBenches.flatMap((bench) => {
    const declared = bench.roundTrips;
    if (declared === undefined) return [];
    const stores = Object.keys(STORE_NAMES) as Array<keyof DeclaredRoundTrips>;
    return [
      [`rt:${bench.name}`, { inline: `${declared.redis} / ${declared.revocation} / ${declared.pg}` }],
      ...stores.map((store): [string, FigureText] => [`rt:${bench.name}:${store}`, { inline: counted(declared[store], store) }]),
    ];
  });
}
