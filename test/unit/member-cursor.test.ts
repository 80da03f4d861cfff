// The member list's cursor: what a page hands out reads back to the same position, and nothing else reads at all.
import { describe, expect, it } from 'vitest';
import { decodeMemberCursor, encodeMemberCursor } from '../../lib/auth/members/member-cursor.ts';

const position = { at: '2026-05-01T12:00:00.123456Z', id: '0190f5c2-6a7b-7c8d-9e0f-a1b2c3d4e5f6' };

describe('member cursor', () => {
  it('round-trips a position and is opaque base64url', () => {
    const cursor = encodeMemberCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeMemberCursor(cursor)).toEqual(position);
    expect(decodeMemberCursor(encodeMemberCursor({ ...position, id: position.id.toUpperCase() }))).toEqual(position);
  });

  it('refuses anything no page handed out', () => {
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    for (const cursor of [
      '',
      '$$',
      b64('not a cursor'),
      b64(`2026-05-01T12:00:00.123Z|${position.id}`),
      b64(`${position.at}|not-a-uuid`),
      b64(`${position.at}|${position.id}|extra`),
      b64(`${position.at}`),
      // A date of the right shape that PostgreSQL cannot hold (there is no year 0): refused here, not a 500 there.
      b64(`0000-01-01T00:00:00.000000Z|${position.id}`),
      Buffer.from([0xff, 0xfe]).toString('base64url'),
      'A'.repeat(300),
    ]) {
      expect(decodeMemberCursor(cursor), cursor).toBeUndefined();
    }
  });
});
