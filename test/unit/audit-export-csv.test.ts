// The audit export's pure parts: CSV cells (quotes, commas, line breaks, formula starts), progress, download pages.
import { describe, expect, it } from 'vitest';
import { AUDIT_CSV_HEADER, auditCsvLine, csvCell } from '../../lib/runtime/jobs/csv.ts';
import { pagesOf } from '../../lib/runtime/jobs/export-file.ts';
import { progressPercent } from '../../lib/runtime/jobs/job-record.ts';

describe('csvCell', () => {
  it('leaves plain text alone and writes null as an empty cell', () => {
    expect(csvCell('invite.created')).toBe('invite.created');
    expect(csvCell('0192f0c1-0000-7000-8000-000000000000')).toBe('0192f0c1-0000-7000-8000-000000000000');
    expect(csvCell(null)).toBe('');
    expect(csvCell('')).toBe('');
  });

  it('quotes a cell with a comma, a quote or a line break, doubling every quote', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\rlf')).toBe('"cr\rlf"');
  });

  it('defuses a cell a spreadsheet would run as a formula: a leading quote mark, inside quotes', () => {
    expect(csvCell('=HYPERLINK("http://evil.example","x")')).toBe(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(csvCell('+cmd|calc')).toBe(`"'+cmd|calc"`);
    expect(csvCell('-1+1')).toBe(`"'-1+1"`);
    expect(csvCell('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvCell('\t=1')).toBe(`"'\t=1"`);
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    // Only the first character counts.
    expect(csvCell('a=b')).toBe('a=b');
  });
});

describe('auditCsvLine', () => {
  it('writes the eight columns of the header in order, details as JSON, the acting key last, CRLF at the end', () => {
    expect(AUDIT_CSV_HEADER).toBe('occurred_at,action,actor_user_id,location_id,target_id,correlation_id,details,actor_api_key_id\r\n');
    const line = auditCsvLine({
      occurredAtUtc: '2026-03-04T05:06:07.089Z',
      action: 'invite.created',
      actorUserId: '0192f0c1-0000-7000-8000-000000000001',
      locationId: null,
      targetId: '0192f0c1-0000-7000-8000-000000000002',
      correlationId: '-2+3',
      details: { roleCode: 'Viewer', note: 'a,"b"' },
      actorApiKeyId: null,
    });
    expect(line).toBe(
      '2026-03-04T05:06:07.089Z,invite.created,0192f0c1-0000-7000-8000-000000000001,,0192f0c1-0000-7000-8000-000000000002,' +
        `"'-2+3","{""roleCode"":""Viewer"",""note"":""a,\\""b\\""""}",\r\n`,
    );
  });
});

describe('progressPercent', () => {
  it('is rows done over rows total, rounded down, 100 only once done', () => {
    expect(progressPercent('running', 500, 1_200)).toBe(41);
    expect(progressPercent('running', 1_200, 1_200)).toBe(99);
    expect(progressPercent('queued', 0, 0)).toBe(0);
    expect(progressPercent('done', 0, 0)).toBe(100);
    expect(progressPercent('cancelled', 600, 1_200)).toBe(50);
  });
});

describe('pagesOf', () => {
  it('groups consecutive parts up to the page size; a larger part goes alone', () => {
    expect(pagesOf([], 10)).toEqual([]);
    expect(pagesOf([4, 4, 4], 10)).toEqual([
      { from: 1, to: 2 },
      { from: 3, to: 3 },
    ]);
    expect(pagesOf([3, 30, 3, 3], 10)).toEqual([
      { from: 1, to: 1 },
      { from: 2, to: 2 },
      { from: 3, to: 4 },
    ]);
  });
});
