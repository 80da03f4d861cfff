// Reads a range API answer: one `SUFFIX:COUNT` line per breached hash sharing the prefix. Lines with count 0 are the
// padding `Add-Padding: true` asks for (they hide the answer's true size on the wire) and mean nothing.

const LINE = /^([0-9A-Fa-f]{35}):(\d{1,12})$/;

export type RangeVerdict = 'breached' | 'not-found' | 'malformed';

/**
 * Whether `suffix` is listed with a count above 0, compared without regard to case (the API writes uppercase; a mirror
 * may not). Any line that is not `SUFFIX:COUNT`, or no line at all, makes the whole answer `malformed`: an error page
 * or an empty body served with a 200 is no list (every prefix has hundreds of entries), and reading it as one would
 * pass every password.
 */
export function findSuffix(body: string, suffix: string): RangeVerdict {
  const wanted = suffix.toUpperCase();
  let lines = 0;
  let found = false;
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const match = LINE.exec(line);
    if (match === null) return 'malformed';
    lines += 1;
    if (Number(match[2]) > 0 && match[1]!.toUpperCase() === wanted) found = true;
  }
  if (lines === 0) return 'malformed';
  return found ? 'breached' : 'not-found';
}
