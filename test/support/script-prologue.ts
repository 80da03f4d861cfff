// Whether a script's prologue binds exactly what it declares: `local <name>_key = KEYS[n]` for the nth declared key,
// `local <name> = …ARGV[n]…` for the nth argument (names in snake_case), before anything else, and nowhere else.
import type { LuaScript } from '../../lib/redis/index.ts';

type Declared = Pick<LuaScript, 'name' | 'keys' | 'args' | 'restKeys' | 'restArgs' | 'source'>;

const snake = (name: string): string => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** What is wrong with the script's prologue, one line each; empty when it agrees with the declaration. */
export function prologueMismatches(script: Declared): string[] {
  const found: string[] = [];
  const expected = {
    KEYS: script.keys.map((name) => `${snake(name)}_key`),
    ARGV: script.args.map((name) => snake(name)),
  };
  const bound = { KEYS: new Set<number>(), ARGV: new Set<number>() };
  let inPrologue = true;
  for (const line of script.source.split('\n')) {
    const indexed = [...line.matchAll(/\b(KEYS|ARGV)\[(\d+)\]/g)].map((m) => ({ list: m[1] as 'KEYS' | 'ARGV', n: Number(m[2]) }));
    const binding = /^local (\w+) = /.exec(line);
    if (indexed.length === 0) {
      if (line.trim() !== '') inPrologue = false;
      continue;
    }
    if (binding === null || indexed.length > 1) {
      found.push(`${line.trim()}: KEYS[n] and ARGV[n] appear only in the prologue, one a line (\`local <name> = …\`)`);
      continue;
    }
    const { list, n } = indexed[0]!;
    if (!inPrologue) found.push(`${line.trim()}: after the prologue`);
    const name = expected[list][n - 1];
    if (name === undefined) found.push(`${line.trim()}: ${list}[${n}] is not declared`);
    else if (binding[1] !== name) found.push(`${line.trim()}: ${list}[${n}] is declared as ${name}`);
    if (bound[list].has(n)) found.push(`${line.trim()}: ${list}[${n}] bound twice`);
    bound[list].add(n);
  }
  for (const list of ['KEYS', 'ARGV'] as const) {
    expected[list].forEach((name, i) => {
      if (!bound[list].has(i + 1)) found.push(`${list}[${i + 1}] (${name}) is declared but never bound`);
    });
    found.push(...restMismatches(script, list));
  }
  return found;
}

/** A rest list is declared exactly when the source walks the list past its declared names, and it starts right after them. */
function restMismatches(script: Declared, list: 'KEYS' | 'ARGV'): string[] {
  const rest = list === 'KEYS' ? script.restKeys : script.restArgs;
  const declared = list === 'KEYS' ? script.keys.length : script.args.length;
  const walks = new RegExp(`#${list}\\b|\\b${list}\\[(?!\\d+\\])`).test(script.source);
  if (rest === undefined) return walks ? [`the source walks ${list} but declares no rest list for it`] : [];
  if (!walks) return [`${rest} is declared but the source never walks ${list}`];
  const starts = [...script.source.matchAll(new RegExp(`for \\w+ = (\\d+), #${list} do`, 'g'))].map((m) => Number(m[1]));
  if (starts.length === 0) return [`${rest}: no \`for i = ${declared + 1}, #${list} do\` loop`];
  return starts
    .filter((start) => start !== declared + 1)
    .map((start) => `${rest}: a loop starts at ${list}[${start}], not ${declared + 1}`);
}
