// Public surface of the Redis layer.
export { createRedisStore, type RedisStore } from './store.ts';
export { RedisDefectError, RedisUnavailableError, redisCall, redisReplyError, rethrowDefect } from './errors.ts';
export { defineScript } from './define-script.ts';
export { declaredScripts } from './declared-scripts.ts';
export type { LuaScript } from './lua-script.ts';
export { scriptWire } from './script-wire.ts';
export { runScript, scriptSha } from './run-script.ts';
export { encodeJson, decodeJson } from './codec.ts';
