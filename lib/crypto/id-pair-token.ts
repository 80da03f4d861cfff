// A self-locating secret token: a prefix, then two UUIDs naming its own record and 32 random bytes, base64url. Only the
// token's SHA-256 is stored; the ids let a reader find the record without a lookup by hash.
import { base64urlDecode, base64urlEncode } from './base64url.ts';
import { randomBytes } from './random.ts';
import { bytesToUuid, uuidToBytes } from './uuid.ts';

const SECRET_BYTES = 32;
const TOKEN_BYTES = 16 + 16 + SECRET_BYTES;

interface IdPairToken {
  issue(first: string, second: string): string;
  /** The two ids a token names, or undefined for anything that is not a well-formed token of this prefix. */
  read(token: string): [first: string, second: string] | undefined;
}

/** The token kind of `prefix` (`rsi_`, `rsm_`, …: four characters, so a token says what it is for). */
export function idPairToken(prefix: string): IdPairToken {
  const pattern = new RegExp(`^${prefix}[A-Za-z0-9_-]{86}$`);
  return {
    issue(first, second) {
      const bytes = new Uint8Array(TOKEN_BYTES);
      bytes.set(uuidToBytes(first), 0);
      bytes.set(uuidToBytes(second), 16);
      bytes.set(randomBytes(SECRET_BYTES), 32);
      return prefix + base64urlEncode(bytes);
    },
    read(token) {
      if (!pattern.test(token)) return undefined;
      let bytes: Uint8Array;
      try {
        bytes = base64urlDecode(token.slice(prefix.length));
      } catch {
        return undefined;
      }
      if (bytes.length !== TOKEN_BYTES) return undefined;
      return [bytesToUuid(bytes.subarray(0, 16)), bytesToUuid(bytes.subarray(16, 32))];
    },
  };
}
