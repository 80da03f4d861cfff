// The secrets that sign an attempt: the endpoint's current one, and the one it replaced while the rotation's overlap lasts.
import type { Deps } from '../../deps.ts';
import { endpointSecretBinding, openEndpointSecret } from '../endpoint-secret.ts';
import type { AttemptRow } from './read-attempts.ts';

/** Current first. Throws SecretBoxError when a secret does not open (SECRETS_KEYS lost the key that sealed it). */
export async function signingSecrets(deps: Deps, row: AttemptRow): Promise<string[]> {
  const keys = deps.config.secretsKeys;
  const current = await openEndpointSecret(
    keys,
    { keyId: row.secret_key_id, ciphertext: row.secret_ciphertext },
    endpointSecretBinding(row.organization_id, row.endpoint_id, row.secret_version),
  );
  const overlapping =
    row.previous_secret_key_id !== null &&
    row.previous_secret_ciphertext !== null &&
    row.previous_secret_version !== null &&
    row.previous_secret_until !== null &&
    row.previous_secret_until.getTime() > deps.clock.now();
  if (!overlapping) return [current];
  const previous = await openEndpointSecret(
    keys,
    { keyId: row.previous_secret_key_id!, ciphertext: row.previous_secret_ciphertext! },
    endpointSecretBinding(row.organization_id, row.endpoint_id, row.previous_secret_version!),
  );
  return [current, previous];
}
