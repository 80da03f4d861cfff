// One isolate's memory of the stored signing keys: public keys by kid for verification, the current private key for
// signing, both loaded from PostgreSQL at most once per interval, and again on an unknown kid at a bounded rate.
import { errors } from '../../http/app-error.ts';
import { importJWK } from 'jose';
import { publishedJwk, type PublishedJwk, type StoredSigningAlgorithm, type StoredSigningKey } from './stored-keys.ts';

/** How long a loaded set serves before it is read again (in the background for verification). */
export const SIGNING_KEYS_RELOAD_INTERVAL_MS = 5 * 60_000;
/** At most one read per this long for a kid the set does not know, or after a failed read: random kids cost PostgreSQL nothing more. */
export const SIGNING_KEYS_RETRY_GAP_MS = 10_000;
/** The JWKS document's max-age: verifiers elsewhere may hold it this long. */
export const JWKS_MAX_AGE_SECONDS = 300;

/**
 * How long a key must have been current before the next rotation: its tokens must have expired, including those an
 * isolate that has not reloaded yet still signs with it; and the next key, made by the same rotation, has been in every
 * isolate's set and every cached JWKS document by then.
 */
export function rotationMinIntervalMs(accessTokenMaxLifetimeSeconds: number): number {
  return accessTokenMaxLifetimeSeconds * 1000 + SIGNING_KEYS_RELOAD_INTERVAL_MS + JWKS_MAX_AGE_SECONDS * 1000;
}

export interface SigningKeyRingSource {
  /** Every published key (one PostgreSQL read). */
  load(): Promise<StoredSigningKey[]>;
  /** Opens a key's sealed private JWK with SECRETS_KEYS. */
  openPrivate(key: StoredSigningKey): Promise<string>;
  /** Dev/test: makes the first keys when there are none, so nothing needs a manual step (lib/auth/signing-keys/ring-for-config.ts). */
  createIfMissing?(): Promise<void>;
  now(): number;
}

export interface VerificationKey {
  alg: StoredSigningAlgorithm;
  key: CryptoKey;
}

export interface SigningKeyRing {
  /** The public key named by `kid`, from memory; reads PostgreSQL only for a kid not known (bounded) or an empty set. */
  verificationKey(kid: string): Promise<VerificationKey | undefined>;
  /** The current key, to sign with: read again first when the set is older than the interval. */
  signingKey(): Promise<VerificationKey & { kid: string }>;
  /** The published keys (current, next, previous), for /.well-known/jwks.json. */
  publishedJwks(): Promise<{ keys: PublishedJwk[] }>;
}

interface Entry {
  stored: StoredSigningKey;
  publicKey: Promise<CryptoKey>;
  privateKey?: Promise<CryptoKey>;
}

interface Loaded {
  atMs: number;
  byKid: Map<string, Entry>;
}

const STATE_ORDER = { current: 0, next: 1, previous: 2 } as const;

export function createSigningKeyRing(source: SigningKeyRingSource): SigningKeyRing {
  let loaded: Loaded | undefined;
  let lastAttemptMs = -Infinity;
  let inflight: Promise<Loaded> | undefined;

  // Single-flight: every caller of one isolate waits on the same read. A kid's key never changes, so an entry (and
  // its imported keys) carries over from one load to the next.
  const reload = (): Promise<Loaded> =>
    (inflight ??= (async () => {
      lastAttemptMs = source.now();
      try {
        const keys = await source.load();
        const byKid = new Map<string, Entry>();
        for (const stored of keys) {
          const kept = loaded?.byKid.get(stored.kid);
          byKid.set(stored.kid, {
            stored,
            publicKey: kept?.publicKey ?? importPublic(stored),
            ...(kept?.privateKey !== undefined ? { privateKey: kept.privateKey } : {}),
          });
        }
        loaded = { atMs: source.now(), byKid };
        return loaded;
      } finally {
        inflight = undefined;
      }
    })());

  const mayRetry = () => source.now() - lastAttemptMs >= SIGNING_KEYS_RETRY_GAP_MS;
  const stale = (set: Loaded) => source.now() - set.atMs >= SIGNING_KEYS_RELOAD_INTERVAL_MS;

  const verificationKey = async (kid: string): Promise<VerificationKey | undefined> => {
    let set = loaded;
    if (set === undefined) {
      if (!mayRetry()) return undefined;
      set = await reload().catch(() => undefined);
      if (set === undefined) return undefined;
    } else if (stale(set) && mayRetry()) {
      // Verification never waits for a routine reload: the set in hand serves until the new one lands.
      reload().catch(() => undefined);
    }
    let entry = set.byKid.get(kid);
    if (entry === undefined && mayRetry()) entry = (await reload().catch(() => undefined))?.byKid.get(kid);
    if (entry === undefined) return undefined;
    return { alg: entry.stored.alg, key: await entry.publicKey };
  };

  const current = (set: Loaded): Entry | undefined => [...set.byKid.values()].find((entry) => entry.stored.state === 'current');

  const signingKey = async (): Promise<VerificationKey & { kid: string }> => {
    let set = loaded !== undefined && !stale(loaded) ? loaded : await reload();
    let entry = current(set);
    if (entry === undefined && source.createIfMissing !== undefined) {
      await source.createIfMissing();
      set = await reload();
      entry = current(set);
    }
    // No current key outside dev/test: a deployment step is missing (docs/deploy.md), so the caller hears 503, not 500.
    if (entry === undefined) throw errors.NOT_CONFIGURED('an access-token signing key (npm run keys:rotate makes the first)');
    // Opened once per key per isolate, on the first signature that needs it.
    const opened = entry;
    opened.privateKey ??= source.openPrivate(opened.stored).then((jwk) => importPrivate(opened.stored.alg, jwk));
    opened.privateKey.catch(() => (opened.privateKey = undefined));
    return { kid: opened.stored.kid, alg: opened.stored.alg, key: await opened.privateKey };
  };

  const publishedJwks = async (): Promise<{ keys: PublishedJwk[] }> => {
    let set = loaded;
    if (set === undefined || (stale(set) && mayRetry())) {
      try {
        set = await reload();
      } catch (error) {
        // An older set still answers; none at all is an outage the route reports.
        if (loaded === undefined) throw error;
        set = loaded;
      }
    }
    const keys = [...set.byKid.values()].map((entry) => entry.stored);
    keys.sort((a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state]);
    return { keys: keys.map(publishedJwk) };
  };

  return { verificationKey, signingKey, publishedJwks };
}

async function importPublic(stored: StoredSigningKey): Promise<CryptoKey> {
  return (await importJWK({ ...stored.publicJwk, alg: stored.alg }, stored.alg)) as CryptoKey;
}

async function importPrivate(alg: StoredSigningAlgorithm, jwk: string): Promise<CryptoKey> {
  return (await importJWK({ ...(JSON.parse(jwk) as Record<string, unknown>), alg }, alg)) as CryptoKey;
}
