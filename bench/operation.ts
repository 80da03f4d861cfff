// What one named operation bench (sequential calls) or burst bench (concurrent calls) is, and the figures the runner measures for it.
import type { Teardown } from '../local/stack/teardown.ts';
import type { BenchStack } from './stack.ts';

/** One call of the operation; throws when the answer is not the one a working system gives. */
export type BenchCall = ((index: number) => Promise<void>) & {
  /** Stops what `prepare` left running for the timed section (background load), once the last call is done. */
  finish?: () => Promise<void>;
};

export interface OperationBench {
  /** The key in the report, e.g. `invites.create`. */
  name: string;
  /** One line on what a call does, shown under the table. */
  describe: string;
  /**
   * Everything a call needs, made outside the timed section (fixtures, fresh invites, tokens).
   * `count` calls will be made, with indices 0..count-1; each index is used once.
   */
  prepare(stack: BenchStack, count: number): Promise<BenchCall>;
  /**
   * The round trips one call is held to, per store, where the docs quote them: `npm run docs:generate` writes them into
   * the docs, and the bench (bench/declared-round-trips.ts) and test/integration/bench-round-trips.test.ts measure them.
   */
  roundTrips?: DeclaredRoundTrips;
}

/** Round trips per call: main store, revocation store, PostgreSQL. */
export interface DeclaredRoundTrips {
  redis: number;
  revocation: number;
  pg: number;
}

export interface OperationFigures {
  /** Main-store Redis round trips per call (HTTP requests at its REST proxy). */
  redisRoundTrips: number;
  /** Revocation-store round trips per call (the auth check), counted at its own REST proxy. */
  revocationRoundTrips: number;
  /** PostgreSQL round trips per call: HTTP /sql requests + WebSocket connections at the Neon proxy. */
  pgRoundTrips: number;
  /**
   * Redis commands per call as Upstash bills them (top-level commands: a script call is one, each entry of a pipeline
   * or transaction is one), counted at the main store's REST proxy.
   */
  redisCommands: number;
  /** The same at the revocation store's REST proxy (a database of its own, billed on its own). */
  revocationCommands: number;
  /** PostgreSQL statements per call sent over /sql (each statement of a transaction batch counts). */
  pgStatements: number;
  /** Logins at the fake Syrve upstream per call, i.e. licence seats taken (0 for anything that never goes upstream). */
  upstreamLogins: number;
  p50Ms: number;
  p99Ms: number;
  /** Calls per second of the timed run: one call at a time for an operation, the whole crowd for a burst. */
  perSecond: number;
  /** This process's CPU per call over the timed run (the app with the in-process proxies and fakes), in ms. */
  cpuMsPerCall: number;
}

export interface OperationResult extends OperationFigures {
  name: string;
  calls: number;
}

/**
 * A fixed number of calls made `concurrency` at a time, no warm-up, whatever `--calls` says: for figures that only a
 * crowd shows (how many logins a cold cache costs when callers arrive together).
 */
export interface BurstBench {
  name: string;
  describe: string;
  calls: number;
  concurrency: number;
  /** Fixtures and warm-up outside the timed section; the calls' indices are 0..calls-1. */
  prepare(stack: BenchStack): Promise<BenchCall>;
}

export interface BurstResult extends OperationResult {
  concurrency: number;
  /** Upstream logins during the burst, in all (the per-call figure of a burst rounds to nothing). */
  totalUpstreamLogins: number;
  /** From the first call's start to the last call's end. */
  wallMs: number;
}

/** Checks an HTTP answer and reads its body, as a real client would. */
export async function expectStatus(operation: string, response: Response, status: number): Promise<void> {
  const body = await response.text();
  if (response.status !== status) {
    // Error bodies of this API carry a code and a message, never a secret.
    throw new Error(`${operation}: expected HTTP ${status}, got ${response.status}: ${body.slice(0, 300)}`);
  }
}

/** Named figures one bench measured, e.g. a scheduled task's commands and ms per run. */
export interface FigureResult {
  name: string;
  figures: Record<string, number>;
}

/**
 * A bench that measures once per `npm run bench`, on a workload of its own, instead of timing calls: for figures
 * per run of a scheduled task rather than per request. What it starts goes on `teardown`, so Ctrl-C stops it too.
 */
export interface FigureBench {
  name: string;
  describe: string;
  measure(teardown: Teardown): Promise<FigureResult[]>;
}
