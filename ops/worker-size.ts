// `npm run size`: the worker bundle wrangler would upload (a dry-run build), raw and gzipped, against the size goal, and
// the console's page weight (what a browser fetches for /console: the HTML, its one script and its one stylesheet).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { consolePageParts } from '../lib/console/page/index.ts';
import { buildWorker } from './build-worker.ts';

// The goal, in KiB as wrangler counts them: under it, the bundle parses quickly at a cold start. The hard
// limits are far above it (3 MiB gzipped on the Free plan, 10 MiB on paid ones).
const GZIP_GOAL_KIB = 150;
const SHOWN_CONTRIBUTORS = 8;

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** node_modules/<package> (scoped or not), else the source's first folder: what a reader would try to shrink. */
function contributorOf(input: string): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (inPackage !== null) return inPackage[1]!;
  const parts = input.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : input;
}

function largest(inputBytes: Record<string, number>): Array<[string, number]> {
  const totals = new Map<string, number>();
  for (const [input, bytes] of Object.entries(inputBytes)) {
    const name = contributorOf(input);
    totals.set(name, (totals.get(name) ?? 0) + bytes);
  }
  return [...totals].sort((a, b) => b[1] - a[1]).slice(0, SHOWN_CONTRIBUTORS);
}

/** Each part as served (UTF-8 bytes) and gzipped at the default level, as a CDN or browser transfer would carry it. */
function printConsoleWeight(): void {
  const parts = consolePageParts().map(([name, text]) => {
    const bytes = new TextEncoder().encode(text);
    return { name, raw: bytes.length, gzip: gzipSync(bytes).length };
  });
  const total = { raw: parts.reduce((sum, p) => sum + p.raw, 0), gzip: parts.reduce((sum, p) => sum + p.gzip, 0) };
  console.log(`console page weight (/console, HTML + JS + CSS): ${kib(total.raw)} raw, ${kib(total.gzip)} gzip`);
  for (const part of parts) console.log(`  ${part.name.padEnd(4)} ${kib(part.raw).padStart(10)} raw  ${kib(part.gzip).padStart(10)} gzip`);
}

async function main(): Promise<void> {
  const outDir = await mkdtemp(join(tmpdir(), 'runstate-size-'));
  try {
    const worker = await buildWorker(outDir);
    const met = worker.gzipBytes < GZIP_GOAL_KIB * 1024;
    console.log(`worker bundle (wrangler deploy --dry-run): ${kib(worker.bytes)} raw, ${kib(worker.gzipBytes)} gzip`);
    console.log(
      `goal: under ${GZIP_GOAL_KIB} KiB gzip — ${met ? 'met' : `not met (${kib(worker.gzipBytes - GZIP_GOAL_KIB * 1024)} over)`}`,
    );
    console.log('largest parts (minified, before gzip):');
    for (const [name, bytes] of largest(worker.inputBytes)) console.log(`  ${kib(bytes).padStart(10)}  ${name}`);
    printConsoleWeight();
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`size: ${(error as Error).message}`);
  process.exit(1);
});
