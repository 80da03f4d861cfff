// The list cursor: what encodeCursor hands out decodes to the same position, and nothing else decodes at all.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../lib/runtime/invites/list-cursor.ts';

const position = fc.record({
  score: fc.integer({ min: 1, max: 99_999_999_999 }),
  member: fc.stringMatching(/^[0-9a-f]{32}$/),
});

describe('list cursor', () => {
  it('round-trips every position a list can hand out, in base64url only', () => {
    fc.assert(
      fc.property(position, (p) => {
        const cursor = encodeCursor(p);
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(decodeCursor(cursor)).toEqual(p);
      }),
    );
  });

  it('decodes no arbitrary string to a position unless it spells one exactly', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const decoded = decodeCursor(text);
        if (decoded !== undefined) expect(encodeCursor(decoded)).toBe(text);
      }),
    );
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'a+b/c='],
    ['a leading zero score', Buffer.from(`01.${'a'.repeat(32)}`).toString('base64url')],
    ['a short member', Buffer.from(`5.${'a'.repeat(31)}`).toString('base64url')],
    ['a trailing newline', Buffer.from(`5.${'a'.repeat(32)}\n`).toString('base64url')],
    ['a key segment', Buffer.from(`5.${'a'.repeat(30)}}:`).toString('base64url')],
    ['invalid UTF-8', Buffer.from([0xff, 0xfe, 0x2e]).toString('base64url')],
  ])('refuses %s', (_name, cursor) => {
    expect(decodeCursor(cursor)).toBeUndefined();
  });
});
