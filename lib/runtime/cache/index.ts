// cache: the generic read-through cache of org entries (generation in the key), and its tenant-wide invalidation.
export { readThrough } from './read-through.ts';
export { generationBump } from './generation.ts';
export { MEMBER_COUNT_TTL_SECONDS, ORG_SETTINGS_TTL_SECONDS } from './policy.ts';
export { entryShape } from './entries.ts';
