// Turns RESP2 replies read as Buffers into the JSON the Upstash client expects, base64-encoding strings on request.
export type JsonReply = string | number | null | JsonReply[];

/** A Redis error reply (redis-parser's ReplyError), as opposed to a connection failure. */
export function isReplyError(value: unknown): value is Error {
  return value instanceof Error && value.name === 'ReplyError';
}

/**
 * Every string (bulk or status, so `OK` and `PONG` too) becomes base64 of its raw bytes at every depth when
 * `base64` is set; integers and nulls stay as they are.
 */
export function encodeReply(reply: unknown, base64: boolean): JsonReply {
  if (reply === null || reply === undefined) return null;
  if (typeof reply === 'number') return reply;
  if (Buffer.isBuffer(reply)) return base64 ? reply.toString('base64') : reply.toString('utf8');
  if (Array.isArray(reply)) return reply.map((item: unknown) => encodeReply(item, base64));
  // An error nested inside an array (e.g. a Lua table holding redis.error_reply) has no JSON slot of its own:
  // it travels as its text, and errors are never encoded.
  if (isReplyError(reply)) return reply.message;
  const text = typeof reply === 'string' ? reply : String(reply);
  return base64 ? Buffer.from(text, 'utf8').toString('base64') : text;
}
