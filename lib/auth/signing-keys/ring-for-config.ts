// The one signing-key ring of each configuration per isolate (Workers isolate, Lambda container, Node process), over PostgreSQL.
import type { Config } from '../../config/index.ts';
import type { Deps } from '../../deps.ts';
import { openSecret } from '../../crypto/secret-box.ts';
import { createDb } from '../../pg/db.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { signingKeyBinding } from './generate-signing-key.ts';
import { createSigningKeyRing, rotationMinIntervalMs, type SigningKeyRing } from './key-ring.ts';
import { rotateSigningKeys } from './rotate-signing-keys.ts';
import { readSigningKeys } from './stored-keys.ts';

/**
 * By configuration, then by clock: Deps are built per request (functions/entries/), so the ring outlives them, and its
 * reload and retry timing reads the clock of the Deps it serves. Every Deps of a deployment has the one system clock,
 * so an isolate keeps one ring; a test that drives a clock of its own gets a ring that follows it.
 */
const rings = new WeakMap<Config, WeakMap<Deps['clock'], SigningKeyRing>>();

/** Undefined unless the configuration signs with stored keys (ACCESS_TOKEN_SIGNING ES256 or EdDSA). */
export function signingKeyRingFor(deps: Pick<Deps, 'config' | 'clock'>): SigningKeyRing | undefined {
  const { config, clock } = deps;
  const stored = config.auth.stored;
  if (stored === undefined) return undefined;
  let byClock = rings.get(config);
  if (byClock === undefined) rings.set(config, (byClock = new WeakMap()));
  let ring = byClock.get(clock);
  if (ring === undefined) {
    const db = createDb({
      databaseUrl: config.databaseUrl,
      ...(config.neonLocalProxyUrl !== undefined ? { neonLocalProxyUrl: config.neonLocalProxyUrl } : {}),
    });
    const developing = config.appEnv === 'dev' || config.appEnv === 'test';
    ring = createSigningKeyRing({
      load: () => dbCall('read', 'signing keys', (signal) => readSigningKeys(db, { signal })),
      openPrivate: (key) => openSecret(config.secretsKeys, key.sealed, signingKeyBinding(key.kid, key.createdAtMs)),
      now: () => clock.now(),
      // Dev and test make their first keys on first use; a deployment makes them with npm run keys:rotate (docs/deploy.md).
      ...(developing
        ? {
            createIfMissing: async () => {
              // Another isolate that got there first made them ('raced'): the reload that follows finds its keys.
              await rotateSigningKeys(
                { db, secretsKeys: config.secretsKeys },
                {
                  alg: stored.alg,
                  nowMs: clock.now(),
                  minIntervalMs: rotationMinIntervalMs(config.accessTokenMaxLifetimeSeconds),
                  correlationId: 'signing-keys-first-use',
                },
              );
            },
          }
        : {}),
    });
    byClock.set(clock, ring);
  }
  return ring;
}
