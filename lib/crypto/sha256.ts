// SHA-256 digests with WebCrypto: hex for keys and stored token hashes.
import { toBytes } from './bytes.ts';
import { bytesToHex } from './hex.ts';

async function sha256(input: string | Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', toBytes(input)));
}

/** Lowercase hex, 64 characters; strings are hashed as UTF-8. */
export async function sha256Hex(input: string | Uint8Array): Promise<string> {
  return bytesToHex(await sha256(input));
}
