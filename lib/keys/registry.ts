// The key registry as data, derived from the definitions: per key its pattern, matcher, value and TTL (no prose: docs/keys.md).
import type { KeyTtl } from './define-key.ts';
import { KEY_DEFINITIONS, KEY_NAMES, type KeyName } from './definitions.ts';
import type { KeyValue } from './key-values.ts';
import { KEY_ENVS, KEY_PREFIX_PATTERN } from './namespace.ts';
import type { RegistryScope } from './scopes.ts';

export interface RegistryEntry {
  /** Also the name of the keyspace builder that makes this key. */
  name: KeyName;
  /** Human-readable pattern: `<name>` is a placeholder, `{…}` is the literal Redis Cluster hash tag,
   * `<scope>` is `platform`, `org:{<orgId>}`, `outlet:{<outletId>}` or `user:{<userId>}`. */
  pattern: string;
  scopeKinds: readonly RegistryScope[];
  domain: string;
  purpose: string;
  /** Matches a whole key of any valid prefix/env; named groups `prefix`, `env`, `scopeKind`, `scopeId`, `id`. */
  matcher: RegExp;
  valueType: KeyValue['type'];
  value: KeyValue;
  ttl: KeyTtl;
  /** No builder (lib/keys/defs/reserved.ts). */
  dataOnly?: true;
}

const NAMESPACE = `^(?<prefix>${KEY_PREFIX_PATTERN}):(?<env>${KEY_ENVS.join('|')})`;

export const KEY_REGISTRY: readonly RegistryEntry[] = Object.freeze(
  KEY_NAMES.map((name): RegistryEntry => {
    const definition = KEY_DEFINITIONS[name];
    const { scope, domain, purpose, id } = definition;
    const idPattern = id.map((segment) => segment.pattern).join('\\.');
    return Object.freeze({
      name,
      pattern: `<prefix>:<env>:${scope.label}:${domain}:${purpose}:${id.map((segment) => segment.label).join('.')}`,
      scopeKinds: scope.kinds,
      domain,
      purpose,
      matcher: new RegExp(`${NAMESPACE}:${scope.pattern}:${domain}:${purpose}:(?<id>${idPattern})$`),
      valueType: definition.value.type,
      value: definition.value,
      ttl: definition.ttl,
      ...('dataOnly' in definition ? { dataOnly: true as const } : {}),
    });
  }),
);
