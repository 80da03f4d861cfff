// docs/design/limits.md's two tables: each throttle's limit and window from THROTTLE_LIMITS and each API rate limit's
// default from RATE_LIMITS, their prose from ops/docs/throttle-notes.ts.
import { RATE_LIMITS, type RateLimitKind } from '../../lib/runtime/ratelimit/limits.ts';
import { THROTTLE_LIMITS, type LimitedAction } from '../../lib/runtime/throttle/limits.ts';
import { RATE_LIMIT_NOTES, THROTTLE_NOTES } from './throttle-notes.ts';

/** A window as the table says it: `1 min`, `15 min`, `1 h`, or seconds when it is neither. */
export function windowText(seconds: number): string {
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** The notes link from the repository's root; the table stands in docs/design/limits.md, beside the pages they name. */
const fromLimitsPage = (text: string) => text.replaceAll('](docs/design/', '](');

export function throttleTable(): string {
  const actions = Object.keys(THROTTLE_LIMITS) as LimitedAction[];
  const rows = actions.map((action) => {
    const { limit, windowSeconds } = THROTTLE_LIMITS[action];
    const { countedPer, why } = THROTTLE_NOTES[action];
    return `| \`${action}\` | ${countedPer} | ${limit} | ${windowText(windowSeconds)} | ${fromLimitsPage(why)} |`;
  });
  return ['| throttle | counted per | limit | window | why |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** A count with a space between thousands, as the docs write them: `10 000`. */
const grouped = (count: number) => String(count).replace(/\B(?=(\d{3})+$)/g, ' ');

export function rateLimitTable(): string {
  const kinds = Object.keys(RATE_LIMITS) as RateLimitKind[];
  const rows = kinds.map((kind) => {
    const { limit, windowSeconds } = RATE_LIMITS[kind];
    const { countedPer, why } = RATE_LIMIT_NOTES[kind];
    return `| \`${kind}\` | ${countedPer} | ${grouped(limit)} | ${windowSeconds} s sliding | ${why} |`;
  });
  return ['| limit | counted per | default | window | why |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}
