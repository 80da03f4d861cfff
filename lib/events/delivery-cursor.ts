// The delivery list's cursor: base64url of the last listed delivery's id (a UUIDv7, so ids order the list by creation).
import * as z from 'zod';
import { base64urlDecode, base64urlEncode } from '../crypto/index.ts';

const cursorSchema = z
  .string()
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/)
  .transform((cursor, ctx) => {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(base64urlDecode(cursor));
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not base64url text' });
      return z.NEVER;
    }
  })
  .pipe(z.uuid());

export function encodeDeliveryCursor(lastId: string): string {
  return base64urlEncode(new TextEncoder().encode(lastId));
}

/** The id a cursor names, or undefined for anything no page handed out. */
export function decodeDeliveryCursor(cursor: string): string | undefined {
  const parsed = cursorSchema.safeParse(cursor);
  return parsed.success ? parsed.data.toLowerCase() : undefined;
}
