// Waits for the denylist to be marked whole again (a repair started by a request, or a scheduled one, has covered the
// window). `poke` sends a request meanwhile, as live traffic would: an isolate starts a repair at a request, at most
// once a second.
import { expect } from 'vitest';
import { scriptSha } from '../../lib/redis/index.ts';
import { CHECK_DENYLIST } from '../../lib/runtime/revocation/is-revoked.ts';
import { WRITE_REVOCATION } from '../../lib/runtime/revocation/write-revocation.ts';
import type { TestStack } from './stack.ts';

/**
 * Proxy faults that fail one denylist script alone, by its SHA (the first argument of its EVALSHA): the revocation
 * check, or every revocation's write (its entries and the point). The injected error is no NOSCRIPT, so no EVAL
 * follows, and the other script keeps answering.
 */
export async function failingDenylistChecks(): Promise<{ failArgsContaining: string[] }> {
  return { failArgsContaining: [await scriptSha(CHECK_DENYLIST)] };
}

export async function failingDenylistWrites(): Promise<{ failArgsContaining: string[] }> {
  return { failArgsContaining: [await scriptSha(WRITE_REVOCATION)] };
}

export async function waitForWholeDenylist(
  stack: Pick<TestStack, 'redis' | 'deps'>,
  poke?: () => Promise<unknown>,
  timeoutMs = 10_000,
): Promise<void> {
  const key = stack.deps.keys.denylistState();
  const lock = stack.deps.keys.denylistRepairLock();
  const deadline = Date.now() + timeoutMs;
  for (let round = 0; ; round += 1) {
    const raw = await stack.redis.get(key);
    // Whole, and the request-started run that wrote it has let go of its lock.
    if (raw !== null && (JSON.parse(raw) as { state: string }).state === 'whole' && (await stack.redis.exists(lock)) === 0) return;
    if (Date.now() > deadline) expect.fail(`the denylist was not marked whole within ${timeoutMs} ms`);
    if (poke !== undefined && round % 10 === 0) await poke();
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
