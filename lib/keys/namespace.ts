// The leading `{prefix}:{env}` of every key, the allow-lists of environments, scope kinds and platform hash tags.
import { KeyError } from './key-error.ts';
import { requireEnum } from './segments.ts';

/** Same rule as config KEY_PREFIX: no ':', '{', '}' or glob characters can reach the key. */
export const KEY_PREFIX_PATTERN = '[a-z][a-z0-9-]{0,15}';
const KEY_PREFIX = new RegExp(`^${KEY_PREFIX_PATTERN}$`);

/** The environments a deployment runs as (config APP_ENV takes its allow-list from here): each has its own keys. */
export const KEY_ENVS = ['dev', 'test', 'staging', 'prod'] as const;
export type KeyEnv = (typeof KEY_ENVS)[number];

export interface KeyNamespace {
  prefix: string;
  env: KeyEnv;
}

export const SCOPE_KINDS = ['platform', 'org', 'outlet', 'user'] as const;
export type ScopeKind = (typeof SCOPE_KINDS)[number];

/**
 * Named hash tags for platform keys that one script must reach together: `platform:{<tag>}`. `tenant-resolve` holds
 * the resolve limiter's counters and the resolve cache, so the limiter and the cache read are one script on a
 * cluster too (docs/design/tenants.md#tenant-resolution). `oidc-callback` and `sso-handoff` hold the OIDC states and the
 * handoff codes beside the per-address counter their consume script hits first (docs/design/single-use.md); `passkey` the
 * passkey challenges beside the counters their issue and consume scripts hit (docs/design/passkeys.md). `denylist`
 * holds the revocation denylist's entries, its state and its repair lock, so the check and a revocation's write are one
 * script each, and a shard that loses entries loses the state beside them (docs/design/revocation.md). A tag puts all its
 * keys in one slot: use one only where a script needs it.
 */
export const PLATFORM_TAGS = ['tenant-resolve', 'oidc-callback', 'sso-handoff', 'passkey', 'denylist'] as const;
export type PlatformTag = (typeof PLATFORM_TAGS)[number];

export function parseNamespace(namespace: { prefix: unknown; env: unknown }): KeyNamespace {
  if (typeof namespace?.prefix !== 'string' || !KEY_PREFIX.test(namespace.prefix)) {
    throw new KeyError('prefix', 'lowercase letters, digits and hyphens, starting with a letter, at most 16 characters');
  }
  return { prefix: namespace.prefix, env: requireEnum(namespace.env, KEY_ENVS, 'env') };
}
