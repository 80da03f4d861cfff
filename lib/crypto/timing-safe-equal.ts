// Compares secrets (token hashes, signatures) without an early exit that would leak where they differ.

// Used for MFA verifiers; invite tokens compare in Lua, webhook signatures through crypto.subtle.verify.
/**
 * True when `a` and `b` are identical. Strings compare UTF-16 code units, arrays compare bytes.
 * A length mismatch is false; the loop still runs over the longer input and never stops at the
 * first differing unit, so the time depends on the lengths only. (A JIT gives no hard guarantee;
 * this removes the obvious leak.)
 */
export function timingSafeEqual(a: string, b: string): boolean;
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
export function timingSafeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  if (typeof a !== typeof b) return false;
  const unitA = unitReader(a);
  const unitB = unitReader(b);
  const length = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  for (let i = 0; i < length; i++) diff |= unitA(i) ^ unitB(i);
  return diff === 0;
}

function unitReader(value: string | Uint8Array): (index: number) => number {
  // Out-of-range reads yield 0; the length term above already makes such a comparison false.
  if (typeof value === 'string') return (index) => (index < value.length ? value.charCodeAt(index) : 0);
  return (index) => value[index] ?? 0;
}
