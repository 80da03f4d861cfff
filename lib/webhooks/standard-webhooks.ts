// Standard Webhooks signatures (webhook-id, webhook-timestamp, webhook-signature) over the raw body, WebCrypto only.
//
// Not the `standardwebhooks` package (1.1.1): it would run on Workers, but it hashes with a pure-JS SHA-256, reads
// Date.now() itself (no injected clock for the ±5 min window), takes the timestamp with parseInt ("12abc" passes),
// throws instead of returning an outcome, JSON-parses the body, bounds no header, and brings two more dependencies.
// The scheme itself is a few lines.
import { toBytes } from '../crypto/bytes.ts';
import { decodeBase64, encodeBase64 } from './base64.ts';

export type WebhookVerification =
  | { ok: true; webhookId: string; timestampSeconds: number }
  | { ok: false; reason: 'missing-headers' | 'bad-timestamp' | 'stale' | 'bad-signature' };

export interface WebhookHeaders {
  id?: string | null;
  timestamp?: string | null;
  signature?: string | null;
}

const SECRET_PREFIX = 'whsec_';
// Svix issues 24-byte secrets, docs/deploy.md generates 32; fewer than 16 is a configuration mistake.
const MIN_KEY_BYTES = 16;
/** How far a delivery's signed timestamp may be from now, either way; a replay outside it is refused as stale. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;
// An oversize header is refused before any HMAC is computed, so a sender cannot make us compute many.
const MAX_SIGNATURE_HEADER_CHARS = 4096;
const MAX_SIGNATURES = 10;
// Visible ASCII, no spaces: also what webhook_deliveries.webhook_id (1–256 characters) stores.
const WEBHOOK_ID = /^[\x21-\x7e]{1,256}$/;
// Canonical digits only (no sign, no leading zero): the signed text and the number then always agree.
const TIMESTAMP = /^[1-9][0-9]{0,11}$/;
// An HMAC-SHA256 is 32 bytes: 43 base64 characters and one `=`.
const SIGNATURE_BYTES = 32;

/**
 * Checks a delivery before anything reads the body's meaning. A missing or malformed `webhook-id` is
 * 'missing-headers'; a timestamp more than `toleranceSeconds` away from `nowMs`, either way, is 'stale'.
 * Any one valid `v1` signature among the space-separated ones suffices; other versions are ignored.
 * Throws only when the secret itself is not `whsec_<base64 of ≥ 16 bytes>` (a configuration error).
 */
export async function verifyStandardWebhook(input: {
  secret: string;
  headers: WebhookHeaders;
  rawBody: string | Uint8Array;
  nowMs: number;
  toleranceSeconds?: number;
}): Promise<WebhookVerification> {
  const { id, timestamp, signature } = input.headers;
  if (!id || !timestamp || !signature || !WEBHOOK_ID.test(id)) return { ok: false, reason: 'missing-headers' };
  if (!TIMESTAMP.test(timestamp)) return { ok: false, reason: 'bad-timestamp' };
  const entries = signature.length > MAX_SIGNATURE_HEADER_CHARS ? [] : signature.split(' ').filter((entry) => entry !== '');
  if (entries.length === 0 || entries.length > MAX_SIGNATURES) return { ok: false, reason: 'bad-signature' };

  const timestampSeconds = Number(timestamp);
  const tolerance = input.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (Math.abs(Math.floor(input.nowMs / 1000) - timestampSeconds) > tolerance) return { ok: false, reason: 'stale' };

  const key = await hmacKey(input.secret);
  const signed = signedContent(id, timestamp, input.rawBody);
  for (const entry of entries) {
    const comma = entry.indexOf(',');
    if (comma === -1 || entry.slice(0, comma) !== 'v1') continue;
    const candidate = decodeSignature(entry.slice(comma + 1));
    // subtle.verify compares in constant time; we never compare signature strings ourselves.
    if (candidate !== undefined && (await crypto.subtle.verify('HMAC', key, candidate, signed))) {
      return { ok: true, webhookId: id, timestampSeconds };
    }
  }
  return { ok: false, reason: 'bad-signature' };
}

/** The `webhook-signature` value for one delivery: `v1,<base64>`. Throws on an id or timestamp the verifier would refuse. */
export async function signStandardWebhook(input: {
  secret: string;
  id: string;
  timestampSeconds: number;
  rawBody: string | Uint8Array;
}): Promise<string> {
  if (!WEBHOOK_ID.test(input.id)) throw new RangeError('webhook id: 1–256 visible ASCII characters, no spaces');
  const timestamp = String(input.timestampSeconds);
  if (!Number.isSafeInteger(input.timestampSeconds) || !TIMESTAMP.test(timestamp)) {
    throw new RangeError('webhook timestamp: positive whole seconds since the epoch');
  }
  const key = await hmacKey(input.secret);
  const mac = await crypto.subtle.sign('HMAC', key, signedContent(input.id, timestamp, input.rawBody));
  return `v1,${encodeBase64(new Uint8Array(mac))}`;
}

/** `id.timestamp.body` as bytes; a byte body is appended as is, so nothing is re-encoded on the way. */
function signedContent(id: string, timestamp: string, rawBody: string | Uint8Array): Uint8Array<ArrayBuffer> {
  if (typeof rawBody === 'string') return toBytes(`${id}.${timestamp}.${rawBody}`);
  const head = toBytes(`${id}.${timestamp}.`);
  const out = new Uint8Array(head.length + rawBody.length);
  out.set(head);
  out.set(rawBody, head.length);
  return out;
}

/** 32 bytes in canonical base64, else undefined: a malformed candidate is simply not a match. */
function decodeSignature(text: string): Uint8Array<ArrayBuffer> | undefined {
  const bytes = decodeBase64(text);
  // Re-encoding rejects the non-canonical spellings of the same bytes (other trailing bits, missing padding).
  if (bytes === undefined || bytes.length !== SIGNATURE_BYTES || encodeBase64(bytes) !== text) return undefined;
  return bytes;
}

// Imported keys per secret string; a handful at most (the current secret, one being rotated in, tests).
const MAX_CACHED_KEYS = 8;
const keyCache = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keyCache.get(secret);
  if (key === undefined) {
    const raw = secret.startsWith(SECRET_PREFIX) ? decodeBase64(secret.slice(SECRET_PREFIX.length)) : undefined;
    // The message never echoes the secret.
    if (raw === undefined || raw.length < MIN_KEY_BYTES) {
      throw new RangeError(`the webhook secret must be ${SECRET_PREFIX}<base64 of at least ${MIN_KEY_BYTES} bytes>`);
    }
    key = crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    if (keyCache.size >= MAX_CACHED_KEYS) keyCache.delete(keyCache.keys().next().value as string);
    keyCache.set(secret, key);
    // A failed import is not remembered.
    key.catch(() => keyCache.delete(secret));
  }
  return key;
}
