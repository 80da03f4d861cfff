// A keyset page's cursor: an opaque base64url of the last listed row's exact (timestamp, id), zod-checked on the way in,
// so a cursor no page handed out is refused before any query (the invite history and the member list use it).
import * as z from 'zod';
import { base64urlDecode, base64urlEncode } from '../crypto/index.ts';

export interface KeysetPosition {
  /** The row's timestamp to the microsecond (PostgreSQL's precision), UTC, e.g. 2026-05-01T12:00:00.123456Z. */
  at: string;
  /** The row's id; only the cursor carries it. */
  id: string;
}

// Year 0 has the ISO shape but not a PostgreSQL timestamp (it has no year 0): refused here, or the query would fail with 22008.
const position = z.tuple([z.iso.datetime({ precision: 6 }).refine((at) => !at.startsWith('0000-')), z.uuid()]);

const cursorSchema = z
  .string()
  .max(256)
  .regex(/^[A-Za-z0-9_-]+$/)
  .transform((cursor, ctx) => {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(base64urlDecode(cursor)).split('|');
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not base64url text' });
      return z.NEVER;
    }
  })
  .pipe(position);

export function encodeKeysetCursor(last: KeysetPosition): string {
  return base64urlEncode(new TextEncoder().encode(`${last.at}|${last.id}`));
}

/** The position a cursor names, or undefined for anything no page handed out. */
export function decodeKeysetCursor(cursor: string): KeysetPosition | undefined {
  const parsed = cursorSchema.safeParse(cursor);
  return parsed.success ? { at: parsed.data[0], id: parsed.data[1].toLowerCase() } : undefined;
}
