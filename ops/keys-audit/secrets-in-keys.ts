// What in a key name looks like something that must never be a key: an email, a JWT, a long random secret; and the
// key as it may be printed, with anything that could be such a value redacted.
import { KEY_ENVS, KEY_PREFIX_PATTERN } from '../../lib/keys/namespace.ts';

export type KeyLeak = 'email-in-key' | 'jwt-in-key' | 'secret-in-key';

// `%40` too: a URL-encoded address is still an address.
const EMAIL = /[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
// Header and payload are base64url JSON objects, so both start `eyJ` (`{"`).
const JWT = /eyJ[A-Za-z0-9_-]{2,}\.eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/;
const BASE64URL_RUN = /[A-Za-z0-9_-]{32,}/g;
// Hex digests (64: SHA-256/HMAC segments; 40: SHA-1), UUIDs and UUID "N" form: the shapes our builders put in keys.
const HEX_OR_UUID = /^[0-9a-fA-F-]+$/;
/**
 * The 221 most common English letter pairs: identifiers made of words (camelCase, kebab-case, SNAKE_CASE) have 69–100
 * % of their letter pairs here, a random run about a third. Measured in test/unit/keys-audit.test.ts.
 */
const COMMON_PAIRS = new Set(
  (
    'th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io le ve co me de hi ri ro ic ' +
    'ne ea ra ce li ch ll be ma si om ur ca el ta la ns di fo ho pe ec pr no ct us ac ot il tr ly nc et ut ss so rs un ' +
    'lo wa ge ie wh ee wi em ad ol rt po we na ul ni ts mo ow pa im mi ai sh ir su id os iv ia am fi ci vi pl ig tu ev ' +
    'ld ry mp fe bl ab gh ty op wo sa ay ex ke fr oo av ag if ap gr od bo sp rd do uc bu ei ov by rm ep tt oc fa ef cu ' +
    'rn sc gi da yo cr cl du ga qu ue ff ba ey ls va um pp ua up lu go ht ru ug ds lt pi rc rr eg au ck ew mu br bi pt ' +
    'ak pu ui rg ib tl ny ki rk ys ob mm fu ph og ms ye ud mb ip ub oi rl gu dr hr cc tw ft wn nu'
  ).split(' '),
);
const WORDY_SHARE = 0.6;
/** Bits per character: 43 random base64url characters measure about 4.9, word-made identifiers at most about 4.45. */
const RANDOM_BITS = 4.5;
/** Below this a run is a repetition (`aaaa…`), not a secret. */
const REPETITIVE_BITS = 3.5;

/** The leaks a key name shows, each at most once. */
export function keyLeaks(key: string): KeyLeak[] {
  const leaks: KeyLeak[] = [];
  if (EMAIL.test(key)) leaks.push('email-in-key');
  if (JWT.test(key)) leaks.push('jwt-in-key');
  // A JWT is itself a long random-looking run; say what it is once.
  else if ([...key.matchAll(BASE64URL_RUN)].some(([run]) => looksRandom(run))) leaks.push('secret-in-key');
  return leaks;
}

/**
 * A run of 32+ base64url characters reads as random when it is not hex (a hex secret and a digest look alike:
 * builders only take digests, through hashSegment, and an unregistered key is reported anyway), is not a
 * repetition, and either few of its letter pairs are common English ones or its entropy is above any identifier's.
 */
export function looksRandom(run: string): boolean {
  if (HEX_OR_UUID.test(run)) return false;
  const bits = bitsPerChar(run);
  if (bits < REPETITIVE_BITS) return false;
  return wordyShare(run) < WORDY_SHARE || bits >= RANDOM_BITS;
}

/** The share of adjacent letter pairs (any case) that are common in English; 0 when there are fewer than 8 pairs. */
export function wordyShare(run: string): number {
  const text = run.toLowerCase();
  let pairs = 0;
  let common = 0;
  for (let index = 1; index < text.length; index += 1) {
    const pair = text.slice(index - 1, index + 1);
    if (!/^[a-z]{2}$/.test(pair)) continue;
    pairs += 1;
    if (COMMON_PAIRS.has(pair)) common += 1;
  }
  return pairs < 8 ? 0 : common / pairs;
}

/** Shannon entropy of the run's characters. */
export function bitsPerChar(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const PREFIX = new RegExp(`^${KEY_PREFIX_PATTERN}$`);
const ENVS = new Set<string>(KEY_ENVS);
const WORD = /^[a-z]+(?:-[a-z]+)*$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX = /^[0-9a-f]{16,}$/;
const SMALL_NUMBER = /^[0-9]{1,12}$/;
const MAX_PRINTED = 160;

/**
 * The key as findings print it: the namespace, lower-case words, UUIDs (the braces of a hash tag kept) and small
 * numbers as they are; hex digests cut to 8 characters; anything else (an address, a token, a name with digits)
 * replaced by its length. The key's shape stays readable; no value that could be a secret survives.
 */
export function redactKey(key: string): string {
  const printed = key
    .split(':')
    .map((segment, index) => {
      if (index === 0 && PREFIX.test(segment)) return segment;
      if (index === 1 && ENVS.has(segment)) return segment;
      return redactSegment(segment);
    })
    .join(':');
  return printed.length > MAX_PRINTED ? `${printed.slice(0, MAX_PRINTED - 1)}…` : printed;
}

function redactSegment(segment: string): string {
  if (segment === '') return segment;
  const tagged = /^\{(.*)\}$/.exec(segment);
  if (tagged !== null) return `{${redactSegment(tagged[1]!)}}`;
  if (WORD.test(segment) && segment.length <= 32) return segment;
  if (UUID.test(segment) || SMALL_NUMBER.test(segment)) return segment;
  if (HEX.test(segment)) return `${segment.slice(0, 8)}…`;
  // A throttle window id is `action.digest.window`.
  if (segment.includes('.') && !segment.includes('@')) {
    const parts = segment.split('.');
    if (parts.every((part) => part !== '')) return parts.map(redactSegment).join('.');
  }
  return `‹${segment.length} chars›`;
}
