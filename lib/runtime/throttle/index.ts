// throttle: fixed-window counters in Redis (registry row throttleCounter), one table of limits, failing open.
import { hitIpThrottle, ipThrottleWindow } from './hit-ip.ts';
import { hitSignInThrottle } from './hit-sign-in.ts';
import { hitThrottle } from './hit-throttle.ts';

export const throttle = { hit: hitThrottle, hitIp: hitIpThrottle, ipWindow: ipThrottleWindow, hitSignIn: hitSignInThrottle };
export { ipSubject, UNKNOWN_IP_SUBJECT } from './ip-subject.ts';
export type { IpLimitedAction } from './hit-ip.ts';
export type { ThrottleOutcome } from './hit-throttle.ts';
export { retryAfter, THROTTLE_HIT, throttleOutcome } from './hit-throttle.ts';
export { LUA_THROTTLE_HIT } from './lua.ts';
export { SIGN_IN_DELAY, THROTTLE_LIMITS } from './limits.ts';
export { throttleWindow } from './window.ts';
