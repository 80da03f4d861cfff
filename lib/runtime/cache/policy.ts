// The read-through cache's lifetimes: each entry's TTL, and the generation that outlives them all, declared with their
// keys (lib/keys/defs/cache.ts).
export { MEMBER_COUNT_TTL_SECONDS, ORG_CACHE_GENERATION_TTL_SECONDS, ORG_SETTINGS_TTL_SECONDS } from '../../keys/index.ts';
