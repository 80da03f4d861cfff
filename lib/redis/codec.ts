// JSON values checked by a zod schema on write and on read; a value that fails on read is treated as missing (fail closed).
import type * as z from 'zod';

export function encodeJson<S extends z.ZodType>(schema: S, value: z.input<S>): string {
  return JSON.stringify(schema.parse(value));
}

export function decodeJson<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> | undefined {
  if (typeof raw !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const result = schema.safeParse(parsed);
  return result.success ? result.data : undefined;
}
