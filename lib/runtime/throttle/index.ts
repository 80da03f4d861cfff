// throttle: fixed-window counters in Redis (registry row throttleCounter), one table of limits, failing open.
import { hitIpThrottle } from './hit-ip.ts';
import { hitThrottle } from './hit-throttle.ts';

export const throttle = { hit: hitThrottle, hitIp: hitIpThrottle };
export { ipSubject, UNKNOWN_IP_SUBJECT } from './ip-subject.ts';
export { retryAfter } from './hit-throttle.ts';
export { LUA_THROTTLE_HIT } from './lua.ts';
export { THROTTLE_LIMITS } from './limits.ts';
export { throttleWindow } from './window.ts';
