// The worker's cold start as workerd pays it: CPU time of a fresh workerd process from spawn to its first answer, for
// the built bundle and for a trivial worker started the same way, so the ratio says what the bundle itself costs.
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { basename, dirname, join } from 'node:path';
import type { BuiltWorker } from '../build-worker.ts';
import { PROBE_BINDINGS, PROBE_PATH } from './probe.ts';

const ANSWER_TIMEOUT_MS = 20_000;
// The Linux kernel's scheduler clock per thread (nanoseconds), summed over the process's threads.
const NS_PER_MS = 1e6;

const TRIVIAL_WORKER = "export default { fetch: () => new Response('ok') };\n";

export interface StartupSample {
  /** CPU milliseconds of the workerd process from spawn to the first answer's arrival. */
  cpuMs: number;
  status: number;
}

/** workerd as miniflare (and so the workers tests) run it: the binary of the `workerd` package miniflare depends on. */
function workerdBinary(): string {
  const fromMiniflare = createRequire(createRequire(import.meta.url).resolve('miniflare'));
  return (fromMiniflare('workerd') as { default: string }).default;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Writes a workerd config serving `modules` (the first is the entry) with the bindings; returns its path. */
async function writeConfig(
  dir: string,
  name: string,
  modules: Array<{ name: string; kind: 'esModule' | 'text' }>,
  compatibility: { date: string; flags: string[] },
  bindings: Record<string, string>,
): Promise<string> {
  const moduleList = modules.map((m) => `(name = ${JSON.stringify(m.name)}, ${m.kind} = embed ${JSON.stringify(m.name)})`).join(', ');
  const bindingList = Object.entries(bindings)
    .map(([key, value]) => `(name = ${JSON.stringify(key)}, text = ${JSON.stringify(value)})`)
    .join(', ');
  const config = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [${moduleList}],
  compatibilityDate = ${JSON.stringify(compatibility.date)},
  compatibilityFlags = ${JSON.stringify(compatibility.flags)},
  bindings = [${bindingList}],
);
`;
  const path = join(dir, `${name}.capnp`);
  await writeFile(path, config);
  return path;
}

function cpuMsOf(pid: number): Promise<number> {
  return readdir(`/proc/${pid}/task`).then(async (tasks) => {
    const runtimes = await Promise.all(
      tasks.map((task) =>
        readFile(`/proc/${pid}/task/${task}/schedstat`, 'utf8').then(
          (line) => Number(line.split(' ')[0]),
          () => 0,
        ),
      ),
    );
    return runtimes.reduce((sum, ns) => sum + ns, 0) / NS_PER_MS;
  });
}

/** One cold start: spawn workerd, ask until it answers, read its CPU time, stop it. */
async function sampleOnce(configPath: string): Promise<StartupSample> {
  const port = await freePort();
  const child = spawn(workerdBinary(), ['serve', configPath, `--socket-addr=http=127.0.0.1:${port}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  try {
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`workerd exited: ${stderr.slice(0, 500)}`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}${PROBE_PATH}`);
        await response.arrayBuffer();
        return { cpuMs: await cpuMsOf(child.pid!), status: response.status };
      } catch {
        if (Date.now() > deadline) throw new Error(`workerd gave no answer within ${ANSWER_TIMEOUT_MS} ms: ${stderr.slice(0, 500)}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve),
    );
  }
}

export interface StartupComparison {
  bundle: StartupSample[];
  trivial: StartupSample[];
}

/** Alternates bundle and trivial worker, `runs` times each, so both see the same machine load. */
export async function measureWorkerStartup(worker: BuiltWorker, runs: number): Promise<StartupComparison> {
  // The config embeds the modules by paths relative to itself, so it sits beside the bundle.
  const dir = dirname(worker.scriptPath);
  const compatibility = { date: worker.compatibilityDate, flags: worker.compatibilityFlags };
  const modules = [
    { name: basename(worker.scriptPath), kind: 'esModule' as const },
    ...worker.textModulePaths.map((path) => ({ name: basename(path), kind: 'text' as const })),
  ];
  const bundleConfig = await writeConfig(dir, 'bundle', modules, compatibility, PROBE_BINDINGS);
  await writeFile(join(dir, 'trivial.js'), TRIVIAL_WORKER);
  const trivialConfig = await writeConfig(dir, 'trivial', [{ name: 'trivial.js', kind: 'esModule' }], compatibility, {});
  const result: StartupComparison = { bundle: [], trivial: [] };
  for (let run = 0; run < runs; run++) {
    result.bundle.push(await sampleOnce(bundleConfig));
    result.trivial.push(await sampleOnce(trivialConfig));
  }
  return result;
}
