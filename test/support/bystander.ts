// "Another host" for refusal tests: a listener on a second loopback address or a unix socket that counts who reaches it.
import { createServer, type Server } from 'node:net';

export interface Bystander {
  port: number;
  /** Connections it has accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

export async function startBystander(listen: { host: string } | { path: string }): Promise<Bystander> {
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted += 1;
    // Looks like a Redis answering, so a client that got through would believe it.
    socket.end('+PONG\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('path' in listen) server.listen(listen.path, resolve);
    else server.listen(0, listen.host, resolve);
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    get accepted() {
      return accepted;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
