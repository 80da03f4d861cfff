// The cost table of `npm run bench`: per operation its billed Redis commands and PostgreSQL statements, and what a
// million calls cost at Upstash pay-as-you-go; then the same for the realistic mix (bench/mix.ts).
import { MIX, MIX_WEIGHTS_LINE } from './mix.ts';
import type { OperationResult } from './operation.ts';
import { BILLING_LEGEND, usdPerMillionCalls } from './pricing.ts';

interface CostRow {
  name: string;
  redisCommands: number;
  revocationCommands: number;
  pgStatements: number;
}

const billed = (row: CostRow) => row.redisCommands + row.revocationCommands;

/** The mix weighted over the mix's benches that ran (all of them unless `--only` left some out), and those missing. */
function mixRow(results: OperationResult[]): { row: CostRow; missing: string[] } | undefined {
  const byName = new Map(results.map((r) => [r.name, r]));
  const present = MIX.filter((entry) => byName.has(entry.bench));
  const total = present.reduce((sum, entry) => sum + entry.weight, 0);
  if (total === 0) return undefined;
  const weighted = (pick: (r: OperationResult) => number) =>
    present.reduce((sum, entry) => sum + (entry.weight / total) * pick(byName.get(entry.bench) as OperationResult), 0);
  return {
    row: {
      name: 'mix (per request)',
      redisCommands: weighted((r) => r.redisCommands),
      revocationCommands: weighted((r) => r.revocationCommands),
      pgStatements: weighted((r) => r.pgStatements),
    },
    missing: MIX.filter((entry) => !byName.has(entry.bench)).map((entry) => entry.bench),
  };
}

export function formatCostTable(results: OperationResult[]): string {
  const mix = mixRow(results);
  const rows: CostRow[] = [...results, ...(mix === undefined ? [] : [mix.row])];
  const header = ['cost per request', 'redis cmds', 'revoc. cmds', 'billed cmds', 'pg stmts', 'USD per 1M calls'];
  const body = rows.map((r) => [
    r.name,
    r.redisCommands.toFixed(2),
    r.revocationCommands.toFixed(2),
    billed(r).toFixed(2),
    r.pgStatements.toFixed(2),
    usdPerMillionCalls(billed(r)).toFixed(2),
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => (row[c] as string).length)));
  const line = (cells: string[]) =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number))).join('  ');
  return [
    '',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...body.map(line),
    '',
    BILLING_LEGEND + '.',
    'pg stmts: statements sent over /sql per call (each statement of a transaction batch counts; Neon bills compute time, not statements).',
    `mix: ${MIX_WEIGHTS_LINE} (weights out of 100, each priced by the bench of its name, except ${MIX.filter((e) => e.name !== e.bench)
      .map((e) => `${e.name} by ${e.bench}`)
      .join(', ')})` +
      (mix !== undefined && mix.missing.length > 0 ? `; not run, left out and the rest re-weighted: ${mix.missing.join(', ')}` : ''),
  ].join('\n');
}

/** The same figures for `--json`: per operation and for the mix. */
export function costJson(results: OperationResult[]): Record<string, unknown> {
  const mix = mixRow(results);
  const figures = (r: CostRow) => ({
    billedCommands: round(billed(r)),
    pgStatements: round(r.pgStatements),
    usdPerMillionCalls: round(usdPerMillionCalls(billed(r))),
  });
  return {
    operations: Object.fromEntries(results.map((r) => [r.name, figures(r)])),
    ...(mix === undefined
      ? {}
      : { mix: { ...figures(mix.row), weights: Object.fromEntries(MIX.map((e) => [e.name, e.weight])), missing: mix.missing } }),
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
