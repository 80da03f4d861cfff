// cache: the generic read-through cache of org entries (generation in the key), and its tenant-wide invalidation.
export { readThrough, type ReadThrough, type ReadThroughResult } from './read-through.ts';
export { generationBump, type GenerationBump } from './generation.ts';
export { READ_ORG_CACHE } from './read-entry.ts';
export type { OrgCacheEntry } from './entries.ts';
export { MEMBER_COUNT_TTL_SECONDS, ORG_SETTINGS_TTL_SECONDS } from './policy.ts';
