// The audit export's CSV: RFC 4180 cells (CRLF rows), with cells a spreadsheet would run as a formula defused.

export const AUDIT_CSV_HEADER = 'occurred_at,action,actor_user_id,location_id,target_id,correlation_id,details,actor_api_key_id\r\n';

/** One audit event as the export writes it; `details` is the stored JSON object. */
export interface AuditCsvRow {
  occurredAtUtc: string;
  action: string;
  actorUserId: string | null;
  /** The organisation's API key that acted (then actorUserId is null); last, so the columns before it keep their places. */
  actorApiKeyId: string | null;
  locationId: string | null;
  targetId: string | null;
  correlationId: string;
  details: unknown;
}

// Spreadsheets run a cell that starts with one of these as a formula (=HYPERLINK(…), +cmd|…, -1+1, @SUM(…)); a tab or
// carriage return first can hide one. Audit rows carry caller-chosen text (the correlation id header, detail values).
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One cell: null is empty; a formula-like start gets a leading `'` (so the spreadsheet shows it as text) and quotes;
 * a quote, comma or line break anywhere means quotes, with every `"` doubled.
 */
export function csvCell(value: string | null): string {
  if (value === null) return '';
  const defused = FORMULA_START.test(value) ? `'${value}` : value;
  if (defused === value && !NEEDS_QUOTES.test(value)) return value;
  return `"${defused.replaceAll('"', '""')}"`;
}

export function auditCsvLine(row: AuditCsvRow): string {
  const cells = [
    row.occurredAtUtc,
    row.action,
    row.actorUserId,
    row.locationId,
    row.targetId,
    row.correlationId,
    JSON.stringify(row.details ?? {}),
    row.actorApiKeyId,
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}
