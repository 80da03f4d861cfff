// `npm run size`: the worker bundle wrangler would upload (a dry-run build) and the Lambda bundle SST would, raw and
// gzipped; each one's cold start beside a trivial one measured the same way, against the goal; and the console's page
// weight (what a browser fetches for /console: the HTML, its one script and its one stylesheet).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { consolePageParts } from '../../lib/console/page/index.ts';
import { buildLambda } from '../build-lambda.ts';
import { buildWorker } from '../build-worker.ts';
import { measureLambdaInit } from './lambda-init.ts';
import { measureWorkerStartup } from './worker-startup.ts';

// The goal, for both bundles: the cold start's CPU at most this multiple of a trivial one's measured in the same run
// (on a machine where the trivial worker starts in under 30 ms of CPU; a slow baseline hides the ratio). Size is only
// reported: the hard limits are far above (3 MiB gzipped on Workers' Free plan, 10 MiB on paid ones).
const STARTUP_GOAL_RATIO = 3.5;
const SHOWN_CONTRIBUTORS = 8;
// Cold starts per bundle (and as many of the trivial one, alternating) unless `--runs N`: the median is printed.
const STARTUP_RUNS = Number(parseArgs({ options: { runs: { type: 'string', default: '7' } } }).values.runs);
if (!Number.isInteger(STARTUP_RUNS) || STARTUP_RUNS < 1) throw new Error('--runs takes a whole number of at least 1');

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** node_modules/<package> (scoped or not), else the source's first folder: what a reader would try to shrink. */
function contributorOf(input: string): string {
  // A plugin's namespace (the Lambda build's `raw-text:`) and an absolute path read as the repository path they name.
  const path = input.replace(/^[a-z-]+:/, '').replace(`${process.cwd()}/`, '');
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (inPackage !== null) return inPackage[1]!;
  const parts = path.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : path;
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
  const width = Math.max(...parts.map((p) => p.name.length));
  for (const part of parts)
    console.log(`  ${part.name.padEnd(width)} ${kib(part.raw).padStart(10)} raw  ${kib(part.gzip).padStart(10)} gzip`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const ms = (value: number): string => `${value.toFixed(0)} ms`;

function printSize(label: string, bundle: { bytes: number; gzipBytes: number; inputBytes: Record<string, number> }): void {
  console.log(`${label}: ${kib(bundle.bytes)} raw, ${kib(bundle.gzipBytes)} gzip`);
  console.log('  largest parts (minified, before gzip):');
  for (const [name, bytes] of largest(bundle.inputBytes)) console.log(`    ${kib(bytes).padStart(10)}  ${name}`);
}

function printRatio(label: string, bundleMs: number, trivialMs: number): void {
  const ratio = bundleMs / trivialMs;
  const verdict = ratio <= STARTUP_GOAL_RATIO ? 'met' : 'not met';
  console.log(
    `    ${label}: ${ms(bundleMs)}, trivial ${ms(trivialMs)}: ${ratio.toFixed(1)}x (goal at most ${STARTUP_GOAL_RATIO}x — ${verdict})`,
  );
}

async function main(): Promise<void> {
  const outDir = await mkdtemp(join(tmpdir(), 'runstate-size-'));
  try {
    const worker = await buildWorker(outDir);
    printSize('worker bundle (wrangler deploy --dry-run)', worker);
    const workerStartup = await measureWorkerStartup(worker, STARTUP_RUNS);
    console.log(`  cold start, workerd CPU from spawn to first answer (median of ${STARTUP_RUNS}):`);
    printRatio(
      'bundle',
      median(workerStartup.bundle.map((sample) => sample.cpuMs)),
      median(workerStartup.trivial.map((sample) => sample.cpuMs)),
    );

    const lambda = await buildLambda();
    printSize('lambda bundle (esbuild as sst deploy)', lambda);
    const lambdaInit = await measureLambdaInit(lambda, outDir, STARTUP_RUNS);
    console.log(`  cold start, fresh node: import + first answer, and the process's CPU (median of ${STARTUP_RUNS}):`);
    const initMs = median(lambdaInit.bundle.map((sample) => sample.initMs));
    // A trivial handler's import is next to nothing, so a ratio of wall times says little; the CPU ratio below does.
    console.log(`    init (wall): ${ms(initMs)}, trivial ${ms(median(lambdaInit.trivial.map((sample) => sample.initMs)))}`);
    printRatio(
      'process CPU',
      median(lambdaInit.bundle.map((sample) => sample.cpuMs)),
      median(lambdaInit.trivial.map((sample) => sample.cpuMs)),
    );
    printConsoleWeight();
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`size: ${(error as Error).message}`);
  process.exit(1);
});
