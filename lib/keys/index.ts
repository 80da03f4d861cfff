// Public surface of the key registry: builders, segment validation, hashing of user input, keyspace audit.
export { KeyError } from './key-error.ts';
export {
  isUuid,
  normalizeUuid,
  toUuidN,
  fromUuidN,
  isHex64,
  requireHex64,
  requireEnum,
  UUID_PATTERN,
  UUID_N_PATTERN,
  HEX64_PATTERN,
} from './segments.ts';
export { hashSegment, hashEmail, normalizeEmail, parseHashedSegment, MIN_HASH_KEY_LENGTH, type HashedSegment } from './hash-segment.ts';
export {
  KEY_ENVS,
  KEY_PREFIX_PATTERN,
  SCOPE_KINDS,
  THROTTLE_ACTIONS,
  parseNamespace,
  type KeyEnv,
  type KeyNamespace,
  type ScopeKind,
  type ThrottleAction,
} from './namespace.ts';
export {
  KEY_REGISTRY,
  THROTTLE_WINDOW_ID_PATTERN,
  registryEntry,
  type RegistryEntry,
  type KeyName,
  type KeyValueType,
  type KeyTtlRule,
} from './registry.ts';
export { createKeyspace, MAX_KEY_LENGTH, type Keyspace, type KeyScope } from './keyspace.ts';
export { auditKey, findRegistryEntry, matchingRegistryEntries, type KeyAudit, type KeyAuditFinding } from './audit-keyspace.ts';
