// The audit's output: a table per registry row and a list of findings for people, or one JSON document for CI.
import type { AuditReport, FindingKind } from './audit-keyspace.ts';

/** Findings shown per kind in the table output; `--json` has them all. */
const EXAMPLES_PER_KIND = 5;

export function reportJson(report: AuditReport, rate: number): string {
  const rows = Object.entries(report.rows).map(([name, counts]) => ({ name, ...counts }));
  return JSON.stringify({ ok: report.findings.length === 0, rateLimit: rate, ...report, rows }, null, 2);
}

export function reportTable(report: AuditReport, rate: number): string {
  const lines: string[] = [];
  lines.push(
    `keys:audit: ${report.keys} keys matching ${report.match} in ${report.seconds.toFixed(1)} s ` +
      `(at most ${rate} keys/s)${report.vanished > 0 ? `, ${report.vanished} expired while scanned` : ''}`,
    `eviction policy of the ${report.eviction.store} store: ${report.eviction.policy}` +
      (report.eviction.policy === 'unknown' ? ' (the store does not say; check its settings: docs/deploy.md)' : ''),
  );
  const header = ['registry row', 'keys', 'no TTL', 'TTL>max', 'type', 'value'];
  const body = Object.entries(report.rows)
    .filter(([, counts]) => counts.keys > 0)
    .map(([name, c]) => [name, c.keys, c.noTtl, c.ttlAboveMax, c.wrongType, c.badValue].map(String));
  body.push(['(matches no row)', String(report.unregistered), '', '', '', '']);
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((row) => row[column]!.length)));
  const format = (cells: string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[column]!))).join('  ');
  lines.push('', format(header), ...body.map(format));

  if (report.findings.length === 0) {
    lines.push('', 'no findings');
    return lines.join('\n');
  }
  const byKind = new Map<FindingKind, typeof report.findings>();
  for (const finding of report.findings) byKind.set(finding.kind, [...(byKind.get(finding.kind) ?? []), finding]);
  lines.push('', `${report.findings.length} findings (keys redacted):`);
  for (const [kind, findings] of byKind) {
    lines.push(`  ${kind}: ${findings.length}`);
    for (const finding of findings.slice(0, EXAMPLES_PER_KIND)) {
      const detail = finding.detail === undefined ? '' : ` (${finding.detail})`;
      lines.push(`    ${finding.row ?? '(no row)'}  ${finding.key}${detail}`);
    }
    if (findings.length > EXAMPLES_PER_KIND) lines.push(`    … ${findings.length - EXAMPLES_PER_KIND} more (--json lists all)`);
  }
  return lines.join('\n');
}
