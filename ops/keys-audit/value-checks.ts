// What a live value of each key must look like, from its definition (lib/keys/defs): the zod schema its writer encodes
// with, or the shape of its markers, counters, lock owners and sorted-set members.
import type * as z from 'zod';
import type { RegistryEntry } from '../../lib/keys/index.ts';

export type ValueCheck =
  | { kind: 'json'; schema: z.ZodType }
  | { kind: 'text'; pattern: RegExp; what: string }
  | { kind: 'zset'; member: RegExp; what: string; unixSeconds: boolean };

/** The Redis TYPE a key's values have. */
export function redisTypeOf(entry: RegistryEntry): 'zset' | 'string' {
  return entry.valueType === 'sorted-set' ? 'zset' : 'string';
}

/** The check a key's declared value implies. */
export function valueCheckFor(entry: RegistryEntry): ValueCheck {
  const value = entry.value;
  switch (value.type) {
    case 'json':
      return { kind: 'json', schema: value.schema };
    case 'string':
      return { kind: 'text', pattern: value.pattern, what: value.what };
    case 'counter':
      return { kind: 'text', pattern: /^(?:0|[1-9][0-9]{0,17})$/, what: 'a non-negative integer' };
    case 'marker':
      return { kind: 'text', pattern: /^1$/, what: "the marker '1'" };
    case 'sorted-set':
      return { kind: 'zset', member: value.member, what: value.what, unixSeconds: value.scores === 'unix-seconds' };
  }
}

/** Why a string value fails, in words that never quote it (a zod path at most), or undefined when it passes. */
export function stringValueProblem(check: ValueCheck, raw: string): string | undefined {
  if (check.kind === 'zset') return 'a string where a sorted set belongs';
  if (check.kind === 'text') return check.pattern.test(raw) ? undefined : `not ${check.what}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return 'not JSON';
  }
  const result = check.schema.safeParse(parsed);
  if (result.success) return undefined;
  const paths = result.error.issues.map((issue) => (issue.path.length === 0 ? '(root)' : issue.path.join('.')));
  return `fails its schema at ${[...new Set(paths)].slice(0, 3).join(', ')}`;
}

/** Why a sorted set's sampled members and scores fail, or undefined. `flat` is ZRANGE … WITHSCORES. */
export function zsetValueProblem(check: ValueCheck, flat: string[]): string | undefined {
  if (check.kind !== 'zset') return 'a sorted set where a string belongs';
  for (let at = 0; at < flat.length; at += 2) {
    if (!check.member.test(flat[at] ?? '')) return `a member is not one of ${check.what}`;
    const score = flat[at + 1] ?? '';
    if (check.unixSeconds ? !/^(?:0|[1-9][0-9]{0,11})$/.test(score) : Number.isNaN(Number(score))) {
      return check.unixSeconds ? 'a score is not unix seconds' : 'a score is not a number';
    }
  }
  return undefined;
}
