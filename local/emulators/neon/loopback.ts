// Decides whether a database address is on this machine; the local Neon proxy never reaches further.
import { isIP } from 'node:net';

/** True for localhost, 127.0.0.0/8, ::1 and their IPv4-mapped forms; no DNS lookups. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const lower = bare.toLowerCase();
  if (lower === 'localhost') return true;
  if (isIP(lower) === 4) return lower.startsWith('127.');
  if (isIP(lower) === 6) {
    if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    return mapped !== null && (mapped[1] as string).startsWith('127.');
  }
  return false;
}

/** Splits `host:port` (or `[v6]:port`) as the driver's wsProxy sends it; undefined when malformed. */
export function parseAddress(address: string): { host: string; port: number } | undefined {
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(address);
  const split = bracketed ?? /^(.+):(\d+)$/.exec(address);
  if (split === null) return undefined;
  const port = Number(split[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  return { host: split[1] as string, port };
}
