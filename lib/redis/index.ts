// Public surface of the Redis layer.
export { createRedisStore, CALL_POLICY, type CallKind, type RedisStore } from './store.ts';
export { RedisUnavailableError, redisCall } from './errors.ts';
export { runScript, scriptSha, type LuaScript, type RunScriptOptions } from './script.ts';
export { encodeJson, decodeJson } from './codec.ts';
