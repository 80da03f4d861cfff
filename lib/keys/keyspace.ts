// Typed key builders, one per key definition, bound to a `{prefix}:{env}` namespace.
import type { BuilderOf, KeyDefinition } from './define-key.ts';
import { KEY_DEFINITIONS, KEY_NAMES, type DataOnlyKeyName, type KeyName } from './definitions.ts';
import { KeyError } from './key-error.ts';
import { parseNamespace, type KeyEnv } from './namespace.ts';
import { requireEnum } from './segments.ts';

/** Keys stay under this many characters (docs/design/keys.md#keys). */
export const MAX_KEY_LENGTH = 200;

/** The org cache entries whose keys a Lua script completes with the generation it read (orgCacheEntryPrefix). */
export type OrgCacheResource = 'settings' | 'member-count' | 'rate-limits';
const ORG_CACHE_ENTRIES = {
  settings: 'orgSettingsCache',
  'member-count': 'orgMemberCountCache',
  'rate-limits': 'orgPlanLimitsCache',
} as const satisfies Record<OrgCacheResource, KeyName>;
const ORG_CACHE_RESOURCES = Object.keys(ORG_CACHE_ENTRIES) as OrgCacheResource[];

type Definitions = typeof KEY_DEFINITIONS;

export type Keyspace = Readonly<
  // Every definition but a data-only one has its builder, typed from its scope and id segments.
  { [K in Exclude<KeyName, DataOnlyKeyName>]: BuilderOf<Definitions[K]> } & {
    prefix: string;
    env: KeyEnv;
    /** SCAN MATCH pattern covering every key of this namespace (braces are literal in Redis globs). */
    scanPattern: string;
    /** The invite object key without its last segment (ends in ':'), for Lua scripts that complete the
     * key with a validated invite id; stays inside the org's hash tag. */
    inviteObjectPrefix(orgId: string): string;
    /** The email-index key without its last segment (ends in ':'), for Lua scripts that complete the
     * key with a validated email hash; stays inside the org's hash tag. */
    inviteActiveByEmailHashPrefix(orgId: string): string;
    /** The receipt key without its last segment (ends in ':'), for the reconciler's script. */
    inviteReceiptPrefix(orgId: string): string;
    /** An org cache entry's key without its last segment (ends in ':'), for the read script that completes it with the
     * generation it just read (and the entry's validated qualifier); stays inside the org's hash tag. */
    orgCacheEntryPrefix(orgId: string, resource: OrgCacheResource): string;
  }
>;

/** The key up to its id (ends in ':'): the scope validated, the id left to a script. */
function prefixOf(head: string, definition: KeyDefinition, scope: unknown): string {
  return `${definition.scope.build(head, scope).text}:${definition.domain}:${definition.purpose}:`;
}

/** The builder: the scope from the first argument (if it takes one), then each id segment from the next. */
function builderOf(head: string, definition: KeyDefinition): (...args: unknown[]) => string {
  const { scope, id } = definition;
  return (...args) => {
    const scoped = scope.build(head, scope.takesParam ? args[0] : undefined);
    let next = scope.takesParam ? 1 : 0;
    const segments = id.map((segment) => segment.build(segment.param === undefined ? undefined : args[next++], scoped.id));
    const key = `${scoped.text}:${definition.domain}:${definition.purpose}:${segments.join('.')}`;
    // Every segment is validated, so this only trips on a future definition that outgrows the limit.
    if (key.length >= MAX_KEY_LENGTH) throw new KeyError('key', `fewer than ${MAX_KEY_LENGTH} characters`);
    return key;
  };
}

export function createKeyspace(options: { prefix: string; env: KeyEnv }): Keyspace {
  const { prefix, env } = parseNamespace(options);
  const head = `${prefix}:${env}`;
  const builders = Object.fromEntries(
    KEY_NAMES.filter((name) => !('dataOnly' in KEY_DEFINITIONS[name])).map((name) => [
      name,
      builderOf(head, KEY_DEFINITIONS[name] as KeyDefinition),
    ]),
  );
  const keyspace = {
    prefix,
    env,
    scanPattern: `${head}:*`,
    ...builders,
    inviteObjectPrefix: (orgId: string) => prefixOf(head, KEY_DEFINITIONS.inviteObject, orgId),
    inviteActiveByEmailHashPrefix: (orgId: string) => prefixOf(head, KEY_DEFINITIONS.inviteActiveByEmailHash, orgId),
    inviteReceiptPrefix: (orgId: string) => prefixOf(head, KEY_DEFINITIONS.inviteReceipt, orgId),
    orgCacheEntryPrefix: (orgId: string, resource: OrgCacheResource) =>
      prefixOf(head, KEY_DEFINITIONS[ORG_CACHE_ENTRIES[requireEnum(resource, ORG_CACHE_RESOURCES, 'resource')]], orgId),
  };
  // The builders are made from the definitions at run time; the type above is made from the same definitions.
  return Object.freeze(keyspace) as unknown as Keyspace;
}
