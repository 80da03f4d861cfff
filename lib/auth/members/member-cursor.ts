// The member list's cursor: an opaque base64url of the last listed assignment's exact (created_at, id), zod-checked
// on the way in like the invite history's (lib/runtime/invites/history-cursor.ts).
import * as z from 'zod';
import { base64urlDecode, base64urlEncode } from '../../crypto/index.ts';

export interface MemberPosition {
  /** created_at to the microsecond (PostgreSQL's precision), UTC, e.g. 2026-05-01T12:00:00.123456Z. */
  at: string;
  /** The role assignment's id (never shown otherwise: only the cursor carries it). */
  id: string;
}

const position = z.tuple([z.iso.datetime({ precision: 6 }), z.uuid()]);

/** The cursor's text as given, through to the position it names: anything no member page handed out fails. */
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

export function encodeMemberCursor(last: MemberPosition): string {
  return base64urlEncode(new TextEncoder().encode(`${last.at}|${last.id}`));
}

/** The position a cursor names, or undefined for anything no member page handed out. */
export function decodeMemberCursor(cursor: string): MemberPosition | undefined {
  const parsed = cursorSchema.safeParse(cursor);
  return parsed.success ? { at: parsed.data[0], id: parsed.data[1].toLowerCase() } : undefined;
}
