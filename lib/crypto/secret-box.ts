// The secret box: AES-256-GCM (WebCrypto) for stored credentials, each ciphertext bound to the row it belongs to.
import type { SecretKey } from '../config/secrets-keys.ts';
import { base64urlDecode, base64urlEncode } from './base64url.ts';
import { toBytes } from './bytes.ts';
import { randomBytes } from './random.ts';

/** What a secret belongs to; the same binding must be given to open it. */
export type SecretBinding = SyrvePasswordBinding | TotpSecretBinding | WebhookSecretBinding | SigningKeyBinding;

/** A Syrve connection's password: its organisation, its row and the credential version it was set as. */
export interface SyrvePasswordBinding {
  purpose: 'syrve-password';
  organizationId: string;
  connectionId: string;
  credentialVersion: number;
}

/** A user's TOTP secret (user_mfa): its owner and the enrolment it came from, so a re-enrolment's row cannot be swapped in. */
export interface TotpSecretBinding {
  purpose: 'totp-secret';
  userId: string;
  /** user_mfa.enrolled_at in unix milliseconds. */
  enrolledAtMs: number;
}

/** An organisation's webhook endpoint's signing secret: its organisation, its endpoint and the secret's version. */
export interface WebhookSecretBinding {
  purpose: 'webhook-secret';
  organizationId: string;
  endpointId: string;
  secretVersion: number;
}

/** An access-token signing key's private JWK (signing_keys): its kid and when it was made, so no other row's key opens as it. */
export interface SigningKeyBinding {
  purpose: 'signing-key';
  kid: string;
  /** signing_keys.created_at in unix milliseconds. */
  createdAtMs: number;
}

/** A sealed secret as stored: the id of the key that sealed it and base64url(iv || ciphertext || tag). */
export interface SealedSecret {
  keyId: string;
  ciphertext: string;
}

type SecretBoxErrorReason = 'no-keys' | 'bad-key' | 'bad-binding' | 'unknown-key' | 'does-not-open';

const MESSAGES: Record<SecretBoxErrorReason, string> = {
  'no-keys': 'secret box: no keys configured (SECRETS_KEYS)',
  'bad-key': 'secret box: a key is not 32 bytes',
  'bad-binding': 'secret box: the binding needs a known purpose, its ids and a positive integer version',
  'unknown-key': 'secret box: the secret was sealed with a key that is not configured',
  'does-not-open': 'secret box: the secret does not open (wrong key, wrong binding or tampered)',
};

/** Fixed messages only: never the plaintext, the ciphertext, the key, or even the key id. */
export class SecretBoxError extends Error {
  constructor(readonly reason: SecretBoxErrorReason) {
    super(MESSAGES[reason]);
    this.name = 'SecretBoxError';
  }
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
// Bumped if the additional data's layout ever changes, so an old layout can never be read as a new one.
const BINDING_VERSION = 'runstate.secret-box.v1';

// importKey is async and not free; the Uint8Array of a configured key lives as long as the config.
const imported = new WeakMap<Uint8Array, Promise<CryptoKey>>();

function cryptoKey(secretKey: SecretKey): Promise<CryptoKey> {
  let key = imported.get(secretKey.key);
  if (key === undefined) {
    // A 16- or 24-byte key would import fine as AES-128/192; only AES-256 is meant.
    if (secretKey.key.length !== 32) return Promise.reject(new SecretBoxError('bad-key'));
    key = crypto.subtle.importKey('raw', toBytes(secretKey.key), { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
    imported.set(secretKey.key, key);
    key.catch(() => imported.delete(secretKey.key));
  }
  return key;
}

/**
 * A JSON array of strings and one integer is unambiguous: no field can run into the next. The purpose comes second in
 * every layout, so a ciphertext of one purpose never opens as another; 'syrve-password' keeps the bytes it always had.
 */
function additionalData(binding: SecretBinding): Uint8Array<ArrayBuffer> {
  const [ids, number] = bindingFields(binding);
  if (ids.some((id) => typeof id !== 'string' || id === '') || typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1) {
    throw new SecretBoxError('bad-binding');
  }
  return toBytes(JSON.stringify([BINDING_VERSION, ...ids, number]));
}

function bindingFields(binding: SecretBinding): [ids: unknown[], number: unknown] {
  if (binding?.purpose === 'totp-secret') return [[binding.purpose, binding.userId], binding.enrolledAtMs];
  if (binding?.purpose === 'webhook-secret') return [[binding.purpose, binding.organizationId, binding.endpointId], binding.secretVersion];
  if (binding?.purpose === 'signing-key') return [[binding.purpose, binding.kid], binding.createdAtMs];
  // The original layout, for 'syrve-password' and anything else that reaches here untyped: its bytes never change.
  const legacy = binding as Partial<SyrvePasswordBinding> | undefined;
  return [[legacy?.purpose, legacy?.organizationId, legacy?.connectionId], legacy?.credentialVersion];
}

/**
 * Seals `plaintext` (UTF-8, as TextEncoder encodes it) with the first key and a fresh random IV,
 * bound to `binding`.
 */
export async function sealSecret(keys: readonly SecretKey[], plaintext: string, binding: SecretBinding): Promise<SealedSecret> {
  const newest = keys[0];
  if (newest === undefined) throw new SecretBoxError('no-keys');
  const aad = additionalData(binding);
  const iv = randomBytes(IV_BYTES);
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: aad, tagLength: TAG_BYTES * 8 },
    await cryptoKey(newest),
    toBytes(plaintext),
  );
  const out = new Uint8Array(IV_BYTES + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), IV_BYTES);
  return { keyId: newest.kid, ciphertext: base64urlEncode(out) };
}

/** Opens a sealed secret with the key it names; any other key, binding or a changed byte fails with 'does-not-open'. */
export async function openSecret(keys: readonly SecretKey[], sealed: SealedSecret, binding: SecretBinding): Promise<string> {
  if (keys.length === 0) throw new SecretBoxError('no-keys');
  const secretKey = keys.find((k) => k.kid === sealed.keyId);
  if (secretKey === undefined) throw new SecretBoxError('unknown-key');
  const aad = additionalData(binding);
  const key = await cryptoKey(secretKey);
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = base64urlDecode(sealed.ciphertext);
  } catch {
    throw new SecretBoxError('does-not-open');
  }
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('does-not-open');
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: bytes.subarray(0, IV_BYTES), additionalData: aad, tagLength: TAG_BYTES * 8 },
      key,
      bytes.subarray(IV_BYTES),
    );
  } catch {
    // WebCrypto's OperationError says nothing useful and nothing secret; one reason for every failure.
    throw new SecretBoxError('does-not-open');
  }
  return new TextDecoder().decode(plain);
}
