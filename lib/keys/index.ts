// Public surface of the key registry: builders, segment validation, hashing of user input, keyspace audit.
export { KeyError } from './key-error.ts';
export { isUuid, normalizeUuid, toUuidN, requireEnum } from './segments.ts';
export { hashSegment, hashEmail, normalizeEmail, parseHashedSegment, type HashedSegment } from './hash-segment.ts';
export { THROTTLE_ACTIONS } from './namespace.ts';
export { KEY_REGISTRY, type KeyName } from './registry.ts';
export { createKeyspace, type Keyspace } from './keyspace.ts';
export { auditKey, findRegistryEntry, matchingRegistryEntries } from './audit-keyspace.ts';
export { SINGLE_USE_TTL_SECONDS, type SingleUseKind } from './single-use-ttl.ts';
