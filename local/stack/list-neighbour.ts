// A tenant paging through its own invite list from a worker thread, straight on Redis: the background load of the fairness test and the bench.
import { Worker } from 'node:worker_threads';
import type { Keyspace } from '../../lib/keys/index.ts';
import { scriptWire } from '../../lib/redis/index.ts';
import { LIST_INVITES } from '../../lib/runtime/invites/index.ts';

/** Stand-ins for the arguments that change from page to page; the worker puts each page's values in their places. */
const PER_PAGE = { now: '<now>', afterScore: '<after-score>', afterMember: '<after-member>' } as const;

/**
 * The app's own list script with the app's keys, page after page (about one a millisecond, not a spin: on a shared
 * 2-core machine a spin measures CPU starvation, not Redis being held). Redis is what tenants share; a thread and a
 * connection of its own keep the neighbour's reply parsing off the event loop that serves the measured tenant, and
 * its commands out of the proxies' round-trip counts. Plain JavaScript, so the worker needs no TypeScript loader.
 */
const NEIGHBOUR = `
const { Redis } = require('ioredis');
const { parentPort, workerData } = require('node:worker_threads');
const { url, source, wire, perPage } = workerData;
const redis = new Redis(url);
let running = false;
let pages = 0;
let loop = Promise.resolve();
async function run() {
  let after = ['', ''];
  while (running) {
    const page = new Map([
      [perPage.now, String(Math.floor(Date.now() / 1000))],
      [perPage.afterScore, after[0]],
      [perPage.afterMember, after[1]],
    ]);
    const args = wire.args.map((arg) => page.get(arg) ?? arg);
    const reply = await redis.eval(source, wire.keys.length, ...wire.keys, ...args);
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
      // The call by name, in the script's KEYS and ARGV order, with stand-ins where each page puts its own values.
      wire: scriptWire(LIST_INVITES, {
        keys: { index: options.keys.inviteActiveByOrg(options.organizationId) },
        args: {
          now: PER_PAGE.now,
          objectKeyPrefix: options.keys.inviteObjectPrefix(options.organizationId),
          limit: 100,
          afterScore: PER_PAGE.afterScore,
          afterMember: PER_PAGE.afterMember,
          pruneBatch: 100,
        },
      }),
      perPage: PER_PAGE,
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
