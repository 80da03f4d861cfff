// throttle.hitIp: one hit on a per-address limiter, the address counted as ipSubject gives it (an IPv6 caller per /64).
import type { Deps } from '../../deps.ts';
import { hitThrottle, type ThrottleOutcome } from './hit-throttle.ts';
import { ipSubject } from './ip-subject.ts';
import type { LimitedAction } from './limits.ts';
import { throttleWindow, type ThrottleWindow } from './window.ts';

/** The limiters counted per client address: their names end in "-ip" (docs/design/limits.md#limits). */
export type IpLimitedAction = Extract<LimitedAction, `${string}-ip`>;

/** Platform scope, fail open like every throttle.hit; the runtime's reported address, undefined when it has none. */
export function hitIpThrottle(
  deps: Deps,
  target: { action: IpLimitedAction; clientIp: string | undefined; correlationId: string },
): Promise<ThrottleOutcome> {
  return hitThrottle(deps, {
    action: target.action,
    scope: { kind: 'platform' },
    subject: ipSubject(target.clientIp),
    correlationId: target.correlationId,
  });
}

/**
 * The counter a per-address hit lands on, for an operation that sends THROTTLE_HIT in a pipeline beside its own first
 * read (one request for both: lib/auth/mfa/peek-challenge.ts); throttleOutcome reads the reply.
 */
export function ipThrottleWindow(
  deps: Pick<Deps, 'keys' | 'config' | 'clock'>,
  target: { action: IpLimitedAction; clientIp: string | undefined },
): Promise<ThrottleWindow> {
  return throttleWindow(deps, { action: target.action, scope: { kind: 'platform' }, subject: ipSubject(target.clientIp) });
}
