// The rotation of the stored signing keys: next becomes current, current becomes previous, the old previous is deleted and
// a fresh next is made; with no current key yet (the first run), a current and a next are made. One audited transaction.
import type { SecretKey } from '../../config/secrets-keys.ts';
import { auditStatement } from '../../pg/audit.ts';
import type { Db, Statement } from '../../pg/db.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import { generateSigningKey, type GeneratedSigningKey } from './generate-signing-key.ts';
import { readSigningKeys, type StoredSigningAlgorithm } from './stored-keys.ts';

export interface RotationDeps {
  db: Db;
  secretsKeys: readonly SecretKey[];
}

export interface RotationInput {
  /** The algorithm of the key made now (ACCESS_TOKEN_SIGNING); keys already made keep theirs. */
  alg: StoredSigningAlgorithm;
  nowMs: number;
  /** rotationMinIntervalMs (lib/auth/signing-keys/key-ring.ts): how long the current key must have signed first. */
  minIntervalMs: number;
  correlationId: string;
}

export type RotationOutcome =
  | { ok: true; created: boolean; currentKid: string; nextKid: string; previousKid: string | null; retiredKid: string | null }
  /** The previous key would be deleted while tokens it signed may still be alive, or the next one is not yet everywhere. */
  | { ok: false; reason: 'too-soon'; allowedAtMs: number }
  /** Another rotation committed between this one's read and its write; nothing of this one was written. */
  | { ok: false; reason: 'raced' };

const UNIQUE_VIOLATION = '23505';

export async function rotateSigningKeys(deps: RotationDeps, input: RotationInput): Promise<RotationOutcome> {
  const keys = await dbCall('read', 'signing keys', (signal) => readSigningKeys(deps.db, { signal }));
  const current = keys.find((key) => key.state === 'current');
  const next = keys.find((key) => key.state === 'next');
  const previous = keys.find((key) => key.state === 'previous');
  const at = new Date(input.nowMs).toISOString();
  const statements: Statement[] = [];
  let outcome: Extract<RotationOutcome, { ok: true }>;

  if (current === undefined || next === undefined) {
    // The first run (or a table someone emptied by hand): nothing signs, so nothing published can be cut short.
    const fresh = await generateSigningKey(deps.secretsKeys, input.alg, input.nowMs);
    const following = await generateSigningKey(deps.secretsKeys, input.alg, input.nowMs);
    statements.push({ text: 'DELETE FROM signing_keys WHERE kid = ANY($1::text[])', params: [keys.map((key) => key.kid)] });
    statements.push(insertKey(fresh, 'current', at), insertKey(following, 'next', null));
    outcome = { ok: true, created: true, currentKid: fresh.kid, nextKid: following.kid, previousKid: null, retiredKid: null };
  } else {
    // Tokens signed by `current` live until its last one expires, plus the reload interval of an isolate still signing
    // with it; `next` must have been in every isolate and cached JWKS for as long before it signs.
    const allowedAtMs = Math.max(current.activatedAtMs ?? current.createdAtMs, next.createdAtMs) + input.minIntervalMs;
    if (input.nowMs < allowedAtMs) return { ok: false, reason: 'too-soon', allowedAtMs };
    const fresh = await generateSigningKey(deps.secretsKeys, input.alg, input.nowMs);
    if (previous !== undefined) {
      statements.push({ text: "DELETE FROM signing_keys WHERE kid = $1 AND state = 'previous'", params: [previous.kid] });
    }
    statements.push(
      {
        text: "UPDATE signing_keys SET state = 'previous', retired_at = $2 WHERE kid = $1 AND state = 'current'",
        params: [current.kid, at],
      },
      { text: "UPDATE signing_keys SET state = 'current', activated_at = $2 WHERE kid = $1 AND state = 'next'", params: [next.kid, at] },
      // A rotation that raced this one already made its own next: this insert then breaks the one-per-state index.
      insertKey(fresh, 'next', null),
    );
    outcome = {
      ok: true,
      created: false,
      currentKid: next.kid,
      nextKid: fresh.kid,
      previousKid: current.kid,
      retiredKid: previous?.kid ?? null,
    };
  }
  statements.push(
    auditStatement(
      {
        action: 'signing_keys.rotated',
        actorUserId: null,
        organizationId: null,
        locationId: null,
        targetId: null,
        correlationId: input.correlationId,
        details: {
          alg: input.alg,
          created: outcome.created,
          currentKid: outcome.currentKid,
          nextKid: outcome.nextKid,
          previousKid: outcome.previousKid,
          retiredKid: outcome.retiredKid,
        },
      },
      new Date(input.nowMs),
    ),
  );
  try {
    await dbCall('commit', 'signing keys rotation', (signal) => deps.db.transaction(statements, { signal }));
  } catch (error) {
    if (sqlState(error) === UNIQUE_VIOLATION) return { ok: false, reason: 'raced' };
    throw error;
  }
  return outcome;
}

function insertKey(key: GeneratedSigningKey, state: 'current' | 'next', activatedAt: string | null): Statement {
  return {
    text:
      'INSERT INTO signing_keys (kid, alg, state, public_jwk, sealed_key_id, sealed_private_key, created_at, activated_at) ' +
      'VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8)',
    params: [
      key.kid,
      key.alg,
      state,
      JSON.stringify(key.publicJwk),
      key.sealed.keyId,
      key.sealed.ciphertext,
      new Date(key.createdAtMs).toISOString(),
      activatedAt,
    ],
  };
}
