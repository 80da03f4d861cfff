// docs/design/limits.md's throttle table: each limited action's limit and window from THROTTLE_LIMITS, its prose from
// ops/docs/throttle-notes.ts.
import { THROTTLE_LIMITS, type LimitedAction } from '../../lib/runtime/throttle/limits.ts';
import { THROTTLE_NOTES } from './throttle-notes.ts';

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
