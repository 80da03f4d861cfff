// Starts a real Redis Cluster of three masters on loopback (redis-server ×3 + `redis-cli --cluster create`), for the
// cluster test run: the REST proxy fronts it, so the suite's commands and scripts meet real slots, MOVED and CROSSSLOT.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';
import { startRedisServer, type RedisServerHandle } from './redis-server.ts';

export interface RedisClusterHandle {
  /** redis://127.0.0.1:<port> of every master, in port order; any one is a seed for a cluster client. */
  nodeUrls: string[];
  stop(): Promise<void>;
}

/** How long the three nodes may take to agree that every slot is served. */
const CLUSTER_READY_MS = 20_000;

export async function startRedisCluster(masters = 3): Promise<RedisClusterHandle> {
  const nodes: RedisServerHandle[] = [];
  const stop = async (): Promise<void> => void (await Promise.all(nodes.map((node) => node.stop())));
  try {
    for (let index = 0; index < masters; index += 1) {
      nodes.push(await startRedisServer({ port: await portWithFreeBus(), cluster: true }));
    }
    await createCluster(nodes.map((node) => `127.0.0.1:${node.port}`));
    await Promise.all(nodes.map((node) => waitUntilServing(node.url)));
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodeUrls: nodes.map((node) => node.url), stop };
}

/** A free port whose cluster bus port (+10000) is free too. */
async function portWithFreeBus(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = await freePort();
    if (port + 10_000 <= 65_535 && (await isFree(port + 10_000))) return port;
  }
  throw new Error('no free port pair (port, port + 10000) for a cluster node');
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function createCluster(addresses: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    // --cluster-yes accepts the proposed slot layout; replicas 0: three masters, each owning a third of the slots.
    const child = spawn('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) => reject(new Error(`redis-cli could not run (it ships with redis-server): ${error.message}`)));
    child.once('close', (code) => {
      if (code === 0 && output.includes('All 16384 slots covered')) resolve();
      else reject(new Error(`redis-cli --cluster create failed (exit ${code}): ${output.slice(-2000)}`));
    });
  });
}

async function waitUntilServing(url: string): Promise<void> {
  const connection = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await connection.connect();
    const deadline = Date.now() + CLUSTER_READY_MS;
    while (Date.now() < deadline) {
      const info = await connection.cluster('INFO');
      if (info.includes('cluster_state:ok') && info.includes('cluster_slots_assigned:16384')) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the cluster node at ${url} did not report cluster_state:ok within ${CLUSTER_READY_MS / 1000} s`);
  } finally {
    connection.disconnect();
  }
}
