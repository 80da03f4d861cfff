// A tenant paging through its own invite list from a worker thread, straight on Redis: the background load of the fairness test and the bench.
import { Worker } from 'node:worker_threads';
import type { Keyspace } from '../../lib/keys/index.ts';
import { LIST_INVITES } from '../../lib/runtime/invites/index.ts';

/**
 * The app's own list script with the app's keys, page after page (about one a millisecond, not a spin: on a shared
 * 2-core machine a spin measures CPU starvation, not Redis being held). Redis is what tenants share; a thread and a
 * connection of its own keep the neighbour's reply parsing off the event loop that serves the measured tenant, and
 * its commands out of the proxies' round-trip counts. Plain JavaScript, so the worker needs no TypeScript loader.
 */
const NEIGHBOUR = `
const { Redis } = require('ioredis');
const { parentPort, workerData } = require('node:worker_threads');
const { url, source, indexKey, objectPrefix } = workerData;
const redis = new Redis(url);
let running = false;
let pages = 0;
let loop = Promise.resolve();
async function run() {
  let after = ['', ''];
  while (running) {
    const now = String(Math.floor(Date.now() / 1000));
    const reply = await redis.eval(source, 1, indexKey, now, objectPrefix, '100', after[0], after[1], '100');
    after = reply[0] === 1 ? [String(reply[1]), String(reply[2])] : ['', ''];
    pages += 1;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
parentPort.on('message', async (message) => {
  if (message === 'start') {
    running = true;
    loop = run();
    parentPort.postMessage('started');
  } else if (message === 'stop') {
    running = false;
    await loop;
    parentPort.postMessage(pages);
  } else {
    await redis.quit();
    parentPort.postMessage('closed');
  }
});
`;

export interface ListNeighbour {
  start(): Promise<void>;
  /** Waits for the page in flight; answers the pages walked since the thread began. */
  stop(): Promise<number>;
  close(): Promise<void>;
}

export function startListNeighbour(options: { redisUrl: string; keys: Keyspace; organizationId: string }): ListNeighbour {
  const worker = new Worker(NEIGHBOUR, {
    eval: true,
    workerData: {
      url: options.redisUrl,
      source: LIST_INVITES.source,
      indexKey: options.keys.inviteActiveByOrg(options.organizationId),
      objectPrefix: options.keys.inviteObjectPrefix(options.organizationId),
    },
  });
  const ask = (message: string) =>
    new Promise<unknown>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.postMessage(message);
    });
  return {
    start: async () => {
      await ask('start');
    },
    stop: async () => Number(await ask('stop')),
    close: async () => {
      await ask('close');
      await worker.terminate();
    },
  };
}
