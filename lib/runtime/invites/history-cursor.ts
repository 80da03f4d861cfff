// The invite history's cursor: the keyset cursor (lib/pg/keyset-cursor.ts) of the last listed event's (occurred_at, id).
export { decodeKeysetCursor as decodeHistoryCursor, encodeKeysetCursor as encodeHistoryCursor } from '../../pg/keyset-cursor.ts';
