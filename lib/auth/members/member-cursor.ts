// The member list's cursor: the keyset cursor (lib/pg/keyset-cursor.ts) of the last listed assignment's (created_at, id).
export { decodeKeysetCursor as decodeMemberCursor, encodeKeysetCursor as encodeMemberCursor } from '../../pg/keyset-cursor.ts';
