// Every figure the hand-written docs quote from the code, by the name their markers use (ops/docs/markers.ts): route
// counts and the document's size from the served OpenAPI document, the cluster run's files, the limits' tables,
// `Deps`' fields and the operations' round trips.
import { gzipSync } from 'node:zlib';
import { clusterTestFiles } from './cluster-files.ts';
import { depsFieldList } from './deps-fields.ts';
import type { FigureText } from './markers.ts';
import { routeCounts, servedOpenApiText } from './openapi.ts';
import { roundTripFigures } from './round-trips.ts';
import { rateLimitTable, throttleTable } from './throttle-table.ts';

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

export async function docFigures(): Promise<Map<string, FigureText>> {
  const openApi = await servedOpenApiText();
  const routes = routeCounts(openApi);
  const clusterFiles = clusterTestFiles();
  const inline = (text: string | number): FigureText => ({ inline: String(text) });
  return new Map<string, FigureText>([
    ['routes.served', inline(routes.served)],
    ['routes.bearer', inline(routes.bearer)],
    ['routes.operator', inline(routes.operator)],
    ['routes.open', inline(routes.open)],
    ['openapi.size', inline(kib(Buffer.byteLength(openApi)))],
    ['openapi.gzip-size', inline(kib(gzipSync(openApi).length))],
    ['cluster.files', inline(clusterFiles.length)],
    ['cluster.integration-files', inline(clusterFiles.filter((file) => file.startsWith('test/integration/')).length)],
    ['throttle-table', { block: throttleTable() }],
    ['rate-limit-table', { block: rateLimitTable() }],
    ['deps-fields', { block: depsFieldList() }],
    ...roundTripFigures(),
  ]);
}
