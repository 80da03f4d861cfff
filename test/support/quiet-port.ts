// A free loopback port outside the kernel's ephemeral range, for a server that binds it long after it was chosen
// (`npm start` stages PostgreSQL first): a port from `listen(0)` may meanwhile go to another test's `listen(0)` or
// outgoing connection, one below the range only to a process that names it.
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';

/** The range's low end from /proc (32768 on Linux by default); ports below it down to 20000 are tried at random. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 21_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function quietPort(): Promise<number> {
  const low = ephemeralLow();
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * (low - 20_000));
    if (await isFree(port)) return port;
  }
  throw new Error('no free port below the ephemeral range');
}
