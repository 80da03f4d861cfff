// A bare RESP2 client over node:net for the reference front, kept apart from the proxy's ioredis so the two cannot share a bug.
import { connect, type Socket } from 'node:net';

/** An error reply from Redis (`-ERR ...`), as opposed to a broken connection. */
export class RespError extends Error {
  override readonly name = 'RespError';
}

/** Bulk and status strings stay raw bytes; integers are numbers; nil is null. */
export type RespReply = Buffer | number | null | RespError | RespReply[];

interface Pending {
  resolve(reply: RespReply): void;
  reject(error: Error): void;
}

export interface RespConnection {
  /** Writes the command at once; replies arrive in the order commands were sent. */
  send(args: string[]): Promise<RespReply>;
  close(): void;
}

export function openRespConnection(redisUrl: string): Promise<RespConnection> {
  const { hostname, port } = new URL(redisUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port || '6379') });
    socket.setNoDelay(true);
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(wrap(socket));
    });
  });
}

function wrap(socket: Socket): RespConnection {
  const pending: Pending[] = [];
  let buffer: Buffer = Buffer.alloc(0);
  let failure: Error | undefined;

  const failAll = (error: Error): void => {
    failure ??= error;
    for (const waiter of pending.splice(0)) waiter.reject(failure);
  };
  socket.on('error', failAll);
  socket.on('close', () => failAll(new Error('the Redis connection closed')));
  socket.on('data', (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    for (;;) {
      let parsed: { reply: RespReply; next: number } | undefined;
      try {
        parsed = parseReply(buffer, 0);
      } catch (error) {
        socket.destroy();
        failAll(error as Error);
        return;
      }
      if (parsed === undefined) return;
      buffer = buffer.subarray(parsed.next);
      pending.shift()?.resolve(parsed.reply);
    }
  });

  return {
    send(args) {
      if (failure !== undefined) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        pending.push({ resolve, reject });
        socket.write(encodeCommand(args));
      });
    },
    close() {
      socket.destroy();
    },
  };
}

function encodeCommand(args: string[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.from(arg, 'utf8');
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}

/** One complete reply starting at `start`, or undefined when more bytes are needed. */
function parseReply(buffer: Buffer, start: number): { reply: RespReply; next: number } | undefined {
  const lineEnd = buffer.indexOf('\r\n', start);
  if (lineEnd === -1) return undefined;
  const type = String.fromCharCode(buffer[start] ?? 0);
  const line = buffer.subarray(start + 1, lineEnd);
  const afterLine = lineEnd + 2;
  switch (type) {
    case '+':
      return { reply: Buffer.from(line), next: afterLine };
    case '-':
      return { reply: new RespError(line.toString('utf8')), next: afterLine };
    case ':':
      return { reply: Number(line.toString('ascii')), next: afterLine };
    case '$': {
      const length = Number(line.toString('ascii'));
      if (length < 0) return { reply: null, next: afterLine };
      if (buffer.length < afterLine + length + 2) return undefined;
      return { reply: Buffer.from(buffer.subarray(afterLine, afterLine + length)), next: afterLine + length + 2 };
    }
    case '*': {
      const count = Number(line.toString('ascii'));
      if (count < 0) return { reply: null, next: afterLine };
      const items: RespReply[] = [];
      let next = afterLine;
      for (let index = 0; index < count; index += 1) {
        const item = parseReply(buffer, next);
        if (item === undefined) return undefined;
        items.push(item.reply);
        next = item.next;
      }
      return { reply: items, next };
    }
    default:
      throw new Error(`unexpected RESP type byte ${JSON.stringify(type)}`);
  }
}
