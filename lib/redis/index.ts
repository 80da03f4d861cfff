// Public surface of the Redis layer.
export { createRedisStore, type RedisStore } from './store.ts';
export { RedisUnavailableError, redisCall } from './errors.ts';
export { runScript, scriptSha, type LuaScript } from './script.ts';
export { encodeJson, decodeJson } from './codec.ts';
