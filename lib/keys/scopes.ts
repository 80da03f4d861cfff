// Where a key lives: an organisation or a user (inside its hash tag), the platform, or a platform hash tag; a definition names one.
import { PLATFORM_TAGS, SCOPE_KINDS, type PlatformTag, type ScopeKind } from './namespace.ts';
import { normalizeUuid, requireEnum, UUID_PATTERN } from './segments.ts';

/** A scope as it appears in a key: a kind, or a platform key under a named hash tag (`platform:{tenant-resolve}`). */
export type RegistryScope = ScopeKind | `platform:{${PlatformTag}}`;

/** A scope the caller chooses at run time; `tag` puts a platform key under a named hash tag. */
export type KeyScope = { kind: 'platform'; tag?: PlatformTag } | { kind: 'org' | 'outlet' | 'user'; id: string };
type UntaggedScope = { kind: 'platform' } | { kind: 'org' | 'outlet' | 'user'; id: string };

/** `P`: what the builder takes first for the scope (`never`: nothing). */
export interface ScopeRule<P = unknown> {
  readonly kinds: readonly RegistryScope[];
  /** Whether the builder's first parameter is the scope. */
  readonly takesParam: boolean;
  /** The scope as docs/keys.md shows it: `org:{<orgId>}`, `platform`, `<scope>`. */
  readonly label: string;
  /** Regex source; named groups `scopeKind`, `scopeId`, `platformTag`. */
  readonly pattern: string;
  /** The key up to and including the scope, and the scope's normalised id (if it has one). */
  build(head: string, value: unknown): { text: string; id: string | undefined };
  /** Type only: the parameter's type. */
  readonly _param?: P;
}

function pattern(kinds: readonly RegistryScope[]): string {
  const tagged = kinds.filter((kind) => kind === 'org' || kind === 'outlet' || kind === 'user');
  const platformTags = PLATFORM_TAGS.filter((tag) => kinds.includes(`platform:{${tag}}`));
  const alternatives: string[] = [];
  if (tagged.length > 0) alternatives.push(`(?<scopeKind>${tagged.join('|')}):\\{(?<scopeId>${UUID_PATTERN})\\}`);
  if (platformTags.length > 0) alternatives.push(`platform:\\{(?<platformTag>${platformTags.join('|')})\\}`);
  if (kinds.includes('platform')) alternatives.push('platform');
  return alternatives.length === 1 ? alternatives[0]! : `(?:${alternatives.join('|')})`;
}

const tagOf = (kind: 'org' | 'user', param: string): ScopeRule<string> => ({
  kinds: [kind],
  takesParam: true,
  label: `${kind}:{<${kind}Id>}`,
  pattern: pattern([kind]),
  build: (head, value) => {
    const id = normalizeUuid(value, param);
    return { text: `${head}:${kind}:{${id}}`, id };
  },
});

/** An organisation's key: `org:{<orgId>}`, so every key of one organisation is in one cluster slot. */
export const orgScope = tagOf('org', 'orgId');
/** A user's key: `user:{<userId>}`. */
export const userScope = tagOf('user', 'userId');

/** A platform key without a hash tag. */
export const platformScope: ScopeRule<never> = {
  kinds: ['platform'],
  takesParam: false,
  label: 'platform',
  pattern: pattern(['platform']),
  build: (head) => ({ text: `${head}:platform`, id: undefined }),
};

/** A platform key under a named hash tag, beside the other keys one script reads with it. */
export const platformTagScope = (tag: PlatformTag): ScopeRule<never> => ({
  kinds: [`platform:{${tag}}`],
  takesParam: false,
  label: `platform:{${tag}}`,
  pattern: pattern([`platform:{${tag}}`]),
  build: (head) => ({ text: `${head}:platform:{${tag}}`, id: undefined }),
});

function chosen<P>(tags: readonly PlatformTag[]): ScopeRule<P> {
  const kinds: RegistryScope[] = [...SCOPE_KINDS, ...tags.map((tag) => `platform:{${tag}}` as const)];
  return {
    kinds,
    takesParam: true,
    label: '<scope>',
    pattern: pattern(kinds),
    build: (head, value) => {
      const kind = requireEnum((value as { kind?: unknown } | null)?.kind, SCOPE_KINDS, 'scope.kind');
      if (kind === 'platform') {
        const tag = (value as { tag?: unknown }).tag;
        if (tag === undefined) return { text: `${head}:platform`, id: undefined };
        return { text: `${head}:platform:{${requireEnum(tag, tags, 'scope.tag')}}`, id: undefined };
      }
      const id = normalizeUuid((value as { id?: unknown }).id, 'scope.id');
      return { text: `${head}:${kind}:{${id}}`, id };
    },
  };
}

/** Any kind, chosen by the caller (a job of an organisation, an Outlet, a user or the platform). */
export const anyScope = (): ScopeRule<UntaggedScope> => chosen([]);
/** Any kind, or the platform under one of these hash tags. */
export const anyScopeOrTag = (...tags: PlatformTag[]): ScopeRule<KeyScope> => chosen(tags);
