// Converts UUIDs between their canonical text form and 16 raw bytes.
import { bytesToHex } from './hex.ts';

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Accepts the canonical 8-4-4-4-12 form in either case; throws without echoing the input. */
export function uuidToBytes(uuid: string): Uint8Array<ArrayBuffer> {
  if (!CANONICAL_UUID.test(uuid)) throw new TypeError('invalid UUID');
  const hex = uuid.replace(/-/g, '');
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Lowercase canonical form of 16 bytes. */
export function bytesToUuid(bytes: Uint8Array): string {
  if (bytes.length !== 16) throw new RangeError('a UUID is 16 bytes');
  const hex = bytesToHex(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
