// The Lambda handler's cold start as Node pays it: a fresh `node` process imports the built bundle and answers one API
// Gateway (HTTP API, payload 2.0) event; a trivial handler is timed the same way beside it.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { writeLambda, type BuiltLambda } from '../build-lambda.ts';
import { PROBE_BINDINGS, PROBE_PATH } from './probe.ts';

const run = promisify(execFile);

const TRIVIAL_HANDLER = "export const handler = async () => ({ statusCode: 200, body: 'ok' });\n";

// Runs in the fresh process: the import and the first call, timed from the script's start; CPU of the whole process.
const CHILD = `
const started = performance.now();
const { handler } = await import(process.argv[1]);
const event = {
  version: '2.0', routeKey: '$default', rawPath: ${JSON.stringify(PROBE_PATH)}, rawQueryString: '', isBase64Encoded: false,
  headers: { host: 'probe.execute-api.eu-central-1.amazonaws.com', accept: 'application/json' },
  requestContext: {
    accountId: '123456789012', apiId: 'probe', domainName: 'probe.execute-api.eu-central-1.amazonaws.com', domainPrefix: 'probe',
    http: { method: 'GET', path: ${JSON.stringify(PROBE_PATH)}, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'size' },
    requestId: 'size-probe', routeKey: '$default', stage: '$default', time: new Date().toUTCString(), timeEpoch: Date.now(),
  },
};
const result = await handler(event, {});
const cpu = process.cpuUsage();
console.log(JSON.stringify({ initMs: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000, status: result.statusCode }));
`;

export interface InitSample {
  /** Wall milliseconds from the child script's start to the first answer (import + first call). */
  initMs: number;
  /** CPU milliseconds of the whole node process, its own start included. */
  cpuMs: number;
  status: number;
}

async function sampleOnce(bundlePath: string): Promise<InitSample> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', CHILD, bundlePath], {
    env: { PATH: process.env.PATH ?? '', ...PROBE_BINDINGS },
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as InitSample;
}

export interface InitComparison {
  bundle: InitSample[];
  trivial: InitSample[];
}

/** Writes the bundle (its own folder) and a trivial handler into `dir`, then alternates them `runs` times each. */
export async function measureLambdaInit(lambda: BuiltLambda, dir: string, runs: number): Promise<InitComparison> {
  const bundlePath = await writeLambda(lambda, join(dir, 'lambda'));
  const trivialPath = join(dir, 'trivial.mjs');
  await writeFile(trivialPath, TRIVIAL_HANDLER);
  const result: InitComparison = { bundle: [], trivial: [] };
  for (let index = 0; index < runs; index++) {
    result.bundle.push(await sampleOnce(bundlePath));
    result.trivial.push(await sampleOnce(trivialPath));
  }
  return result;
}
