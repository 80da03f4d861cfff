// The runtime session as stored in Redis: the runtime DTO of docs/design/syrve.md#syrveiiko-runtime-sessions plus the credential version it was made with.
import { sessionRecordSchema, type SessionRecord } from '../../keys/index.ts';
import { decodeJson } from '../../redis/index.ts';

// The stored shape is declared with its key (lib/keys/defs/syrve.ts).
export { sessionRecordSchema, type SessionRecord };

/** The stored session if it is readable (schema-checked); a value that is not reads as missing. */
export function decodeSession(raw: string): SessionRecord | undefined {
  return decodeJson(sessionRecordSchema, raw);
}
