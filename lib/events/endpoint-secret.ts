// An endpoint's signing secret: a Standard Webhooks `whsec_` secret, sealed at rest with SECRETS_KEYS.
import * as z from 'zod';
import { randomBytes } from '../crypto/random.ts';
import { openSecret, sealSecret, type SealedSecret, type WebhookSecretBinding } from '../crypto/secret-box.ts';
import type { SecretKey } from '../config/secrets-keys.ts';
import { encodeBase64 } from '../webhooks/base64.ts';

/** 32 random bytes: the most the Standard Webhooks format allows (24 to 64), and what an HMAC-SHA256 key wants. */
const SECRET_BYTES = 32;

/** `whsec_` and standard base64 of 24 to 64 bytes: the shape receivers' verifiers accept. */
export const endpointSecretSchema = z.string().regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/, 'a whsec_ secret');

/** A fresh secret; shown once to the admin who created or rotated it, then only ever sealed. */
export function generateEndpointSecret(): string {
  return `whsec_${encodeBase64(randomBytes(SECRET_BYTES))}`;
}

/** What a secret's ciphertext is bound to: a copy in another row, organisation or version does not open. */
export function endpointSecretBinding(organizationId: string, endpointId: string, secretVersion: number): WebhookSecretBinding {
  return { purpose: 'webhook-secret', organizationId, endpointId, secretVersion };
}

export function sealEndpointSecret(keys: readonly SecretKey[], secret: string, binding: WebhookSecretBinding): Promise<SealedSecret> {
  return sealSecret(keys, endpointSecretSchema.parse(secret), binding);
}

/** The plaintext `whsec_` secret, validated; throws SecretBoxError when it does not open under this binding. */
export async function openEndpointSecret(keys: readonly SecretKey[], sealed: SealedSecret, binding: WebhookSecretBinding): Promise<string> {
  return endpointSecretSchema.parse(await openSecret(keys, sealed, binding));
}
