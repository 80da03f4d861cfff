// `npm run bench`: round trips and latency of each operation bench against a one-PING baseline, on a self-contained stack.
import { parseBenchArgs, selected, USAGE, WARMUP_CALLS } from './args.ts';
import { burstBenches, figureBenches, operationBenches } from './operations/index.ts';
import type { BurstResult, FigureResult, OperationResult } from './operation.ts';
import { costJson, formatCostTable } from './cost-report.ts';
import { BASELINE, formatFigures, formatTable, toJson } from './report.ts';
import { runLoad } from './load/run-load.ts';
import { roundTripDifferences } from './declared-round-trips.ts';
import { runBurst, runOperation } from './runner.ts';
import { startBenchStack } from './stack.ts';
import { createTeardown } from '../local/stack/teardown.ts';

/** Set on SIGINT/SIGTERM: the calls that fail while the stack is torn down are not worth reporting. */
let interrupted = false;

/** Only failed clean-up steps are worth a line; the report stays the figures. */
const report = (line: string, stopped: boolean): void => {
  if (!stopped) console.error(`bench: ${line}`);
};

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  if (args.help) {
    console.log(USAGE);
    return;
  }
  const operations = operationBenches.filter((bench) => bench.name === BASELINE || selected(args, bench.name));
  const bursts = burstBenches.filter((bench) => selected(args, bench.name));
  const figureRuns = figureBenches.filter((bench) => selected(args, bench.name));
  if (![...operationBenches, ...burstBenches, ...figureBenches].some((bench) => selected(args, bench.name)))
    throw new Error(`--only ${args.only.join(',')} selects nothing`);
  const teardown = createTeardown();
  // Ctrl-C or a kill still stops redis-server and drops the scratch database.
  const stopOnSignal = (signal: NodeJS.Signals, code: number) =>
    process.once(signal, () => {
      interrupted = true;
      console.error(`bench: ${signal}, cleaning up`);
      void teardown.run(report).finally(() => process.exit(code));
    });
  stopOnSignal('SIGINT', 130);
  stopOnSignal('SIGTERM', 143);

  try {
    if (args.load !== undefined) {
      await runLoad(args.load, teardown, { json: args.json });
      return;
    }
    const stack = await startBenchStack(teardown);
    if (args.latencyMs > 0) stack.addLatency(args.latencyMs);
    const results: OperationResult[] = [];
    const differences: string[] = [];
    for (const bench of operations) {
      // Progress goes to stderr, so --json leaves stdout one JSON document.
      process.stderr.write(`bench: ${bench.name} …\n`);
      const result = await runOperation(stack, bench, { calls: args.calls, warmup: WARMUP_CALLS });
      results.push(result);
      differences.push(...roundTripDifferences(bench, result));
    }
    const burstResults: BurstResult[] = [];
    for (const bench of bursts) {
      process.stderr.write(`bench: ${bench.name} (${bench.calls} calls, ${bench.concurrency} at a time) …\n`);
      burstResults.push(await runBurst(stack, bench));
    }
    const figures: FigureResult[] = [];
    for (const bench of figureRuns) {
      process.stderr.write(`bench: ${bench.name} …\n`);
      figures.push(...(await bench.measure(teardown)));
    }
    if (args.json) {
      const json: Record<string, unknown> = toJson(results, burstResults);
      for (const result of figures) json[result.name] = result.figures;
      json.cost = costJson(results);
      console.log(JSON.stringify(json, null, 2));
    } else {
      const descriptions = new Map([...operations, ...bursts].map((b) => [b.name, b.describe]));
      console.log(formatTable(results, { warmup: WARMUP_CALLS, latencyMs: args.latencyMs, descriptions }, burstResults));
      console.log(formatCostTable(results));
      if (figures.length > 0) console.log(formatFigures(figures, new Map(figureBenches.map((b) => [b.name, b.describe]))));
    }
    // The docs quote the declared figures (npm run docs:generate): a run that measures others says so and fails.
    for (const line of differences) process.stderr.write(`bench: ${line}: fix the code or the declaration, then npm run docs:generate\n`);
    if (differences.length > 0) process.exitCode = 1;
  } finally {
    await teardown.run(report);
  }
}

main().catch((error: unknown) => {
  if (interrupted) return;
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
