// What a breached-password lookup sends and keeps: the SHA-1 of the password, split into the 5-hex prefix the range API
// is asked for (k-anonymity: about a thousand other hashes share it) and the 35-hex suffix looked for in its answer.
import { bytesToHex } from '../../crypto/index.ts';

export interface RangeQuery {
  /** The only part of the password that leaves this process. Still derived from it: never logged. */
  prefix: string;
  suffix: string;
}

/** Uppercase hex, as the range API writes it; the password is hashed as NFC UTF-8, as lib/auth/password.ts derives it. */
export async function rangeQuery(password: string): Promise<RangeQuery> {
  const digest = await crypto.subtle.digest('SHA-1', new TextEncoder().encode(password.normalize('NFC')));
  const hex = bytesToHex(new Uint8Array(digest)).toUpperCase();
  return { prefix: hex.slice(0, 5), suffix: hex.slice(5) };
}
