// RFC 6238 TOTP: HMAC-SHA1 (WebCrypto) over the 30-second step number, dynamically truncated to a few decimal digits.
import { timingSafeEqual } from './timing-safe-equal.ts';

export const TOTP_STEP_SECONDS = 30;
const DEFAULT_DIGITS = 6;

/** The step a moment falls in: floor(unix seconds / 30). */
export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_STEP_SECONDS);
}

function hmacKey(secret: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', new Uint8Array(secret), { name: 'HMAC', hash: 'SHA-1' }, false, ['sign']);
}

async function codeAt(key: CryptoKey, step: number, digits: number): Promise<string> {
  // The step as an 8-byte big-endian counter (RFC 4226 §5.1); steps stay far below 2^53.
  const counter = new DataView(new ArrayBuffer(8));
  counter.setUint32(0, Math.floor(step / 2 ** 32));
  counter.setUint32(4, step >>> 0);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, counter.buffer));
  const offset = mac[19]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The code of one step (RFC 4226 §5.3 truncation). */
export async function totpCode(secret: Uint8Array, step: number, digits = DEFAULT_DIGITS): Promise<string> {
  return codeAt(await hmacKey(secret), step, digits);
}

/**
 * Which step `code` belongs to, trying the current step first and then up to `drift` steps either side (a phone's
 * clock is often a little off); undefined when none matches. The caller needs the step, not a yes: it is what the
 * replay guard burns.
 */
export async function matchTotp(
  secret: Uint8Array,
  code: string,
  nowMs: number,
  options: { drift?: number; digits?: number } = {},
): Promise<number | undefined> {
  const { drift = 1, digits = DEFAULT_DIGITS } = options;
  if (!new RegExp(`^[0-9]{${digits}}$`).test(code)) return undefined;
  const key = await hmacKey(secret);
  const current = totpStep(nowMs);
  const candidates = [current];
  for (let d = 1; d <= drift; d++) candidates.push(current - d, current + d);
  let matched: number | undefined;
  // Every candidate is computed and compared, so the time does not say which one matched.
  for (const step of candidates) {
    if (timingSafeEqual(await codeAt(key, step, digits), code) && matched === undefined) matched = step;
  }
  return matched;
}
