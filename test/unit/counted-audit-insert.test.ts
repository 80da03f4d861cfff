// countedAuditInsert, conditionalAuditInsert and computedAuditInsert: the audit row a changing statement writes with
// details PostgreSQL fills in, or only when it changed something; validated before any SQL is made.
import { describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { computedAuditInsert, conditionalAuditInsert, countedAuditInsert, InvalidAuditEventError } from '../../lib/pg/audit.ts';

const event = {
  action: 'session.revoked_all' as const,
  actorUserId: uuidv7(),
  organizationId: null,
  locationId: null,
  targetId: uuidv7(),
  correlationId: 'corr-1',
};

describe('countedAuditInsert', () => {
  it('numbers its parameters after the statement’s own and fills the count from the given SQL', () => {
    const statement = countedAuditInsert(event, new Date('2030-01-01T00:00:00Z'), { detail: 'revokedCount', sql: 'SELECT 3' }, 4);
    expect(statement.text).toContain('SELECT $4::uuid, $5::timestamptz');
    expect(statement.text).toContain("$12::jsonb || jsonb_build_object('revokedCount', (SELECT 3))");
    expect(statement.text).not.toContain('WHERE');
    expect(statement.params).toHaveLength(9);
    expect(statement.params.slice(1)).toEqual([
      '2030-01-01T00:00:00.000Z',
      event.actorUserId,
      null,
      null,
      event.targetId,
      'session.revoked_all',
      'corr-1',
      '{"revokedCount":0}',
    ]);
    const guarded = countedAuditInsert(event, new Date(), { detail: 'revokedCount', sql: 'SELECT 1', when: 'false' }, 1);
    expect(guarded.text.endsWith(' WHERE false')).toBe(true);
  });

  it('refuses a count detail that names secret material or is no identifier, so nothing but a checked name reaches the SQL', () => {
    for (const detail of ['sessionCount', "x', 1); DROP TABLE sessions; --", 'tokenCount', '1count']) {
      expect(() => countedAuditInsert(event, new Date(), { detail, sql: 'SELECT 1' }, 1), detail).toThrow(InvalidAuditEventError);
    }
  });
});

describe('conditionalAuditInsert', () => {
  it('writes the event as validated, only where the condition holds, with its parameters after the statement’s own', () => {
    const statement = conditionalAuditInsert(
      { ...event, action: 'session.revoked' },
      new Date('2030-01-01T00:00:00Z'),
      'EXISTS (SELECT 1 FROM mine)',
      4,
    );
    expect(statement.text).toContain('SELECT $4::uuid, $5::timestamptz');
    expect(statement.text.endsWith('$12::jsonb WHERE EXISTS (SELECT 1 FROM mine)')).toBe(true);
    expect(statement.params).toHaveLength(9);
    expect(statement.params.slice(6)).toEqual(['session.revoked', 'corr-1', '{}']);
    expect(() => conditionalAuditInsert({ ...event, details: { sessionId: 'x' } }, new Date(), 'true', 1)).toThrow(InvalidAuditEventError);
  });
});

describe('computedAuditInsert', () => {
  it('fills several details from SQL in one jsonb_build_object, after the static ones, under the same checks', () => {
    const statement = computedAuditInsert(
      { ...event, action: 'member.role_changed', details: { toRole: 'Viewer' } },
      new Date('2030-01-01T00:00:00Z'),
      { computed: { fromRole: 'SELECT from_role FROM changed', roleCount: 'SELECT 2' }, when: "(SELECT outcome FROM changed) = 'changed'" },
      5,
    );
    expect(statement.text).toContain(
      "$13::jsonb || jsonb_build_object('fromRole', (SELECT from_role FROM changed), 'roleCount', (SELECT 2)) WHERE (SELECT outcome FROM changed) = 'changed'",
    );
    expect(statement.params.at(-1)).toBe('{"toRole":"Viewer","fromRole":0,"roleCount":0}');
    for (const name of ['sessionIds', "x', 1); --"]) {
      expect(() => computedAuditInsert(event, new Date(), { computed: { [name]: 'SELECT 1' } }, 1), name).toThrow(InvalidAuditEventError);
    }
  });
});
