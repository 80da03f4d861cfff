// Every Lua script lib runs is declared with defineScript, and so is in the registry the other script tests read
// (test/support/lib-scripts.ts): Lua text that calls Redis lives only inside a declaration, or in a fragment spliced
// into one, and an EVAL sends only a declared script's source. No two scripts share a name.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LIB_SCRIPTS, libModules } from '../support/lib-scripts.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Module {
  file: string;
  text: string;
  ast: ts.SourceFile;
}

const isDeclaration = (node: ts.Node): node is ts.CallExpression =>
  ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'defineScript';

function nodes(root: ts.Node): ts.Node[] {
  const all: ts.Node[] = [];
  const visit = (node: ts.Node): void => {
    all.push(node);
    ts.forEachChild(node, visit);
  };
  visit(root);
  return all;
}

/** The names spliced (`${NAME}`) into a defineScript declaration anywhere in these modules: the Lua fragments. */
function splicedNames(modules: Module[]): Set<string> {
  const names = new Set<string>();
  for (const { ast } of modules) {
    for (const declaration of nodes(ast).filter(isDeclaration)) {
      for (const node of nodes(declaration)) {
        if (ts.isTemplateSpan(node) && ts.isIdentifier(node.expression)) names.add(node.expression.text);
      }
    }
  }
  return names;
}

/** Each place in the module where Lua calls Redis outside a declaration or a spliced fragment, and each stray EVAL. */
function undeclaredLua(module: Module, fragments: Set<string>): string[] {
  const all = nodes(module.ast);
  const allowed = all
    .filter(
      (node) =>
        isDeclaration(node) ||
        (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && fragments.has(node.name.text) && node.initializer !== undefined),
    )
    .map((node) => [node.getStart(module.ast), node.getEnd()] as const);
  const found: string[] = [];
  for (const match of module.text.matchAll(/redis\.p?call\(/g)) {
    if (allowed.some(([start, end]) => match.index >= start && match.index < end)) continue;
    const { line } = module.ast.getLineAndCharacterOfPosition(match.index);
    found.push(`${module.file}:${line + 1}: ${module.text.split('\n')[line]!.trim()}`);
  }
  for (const node of all) {
    if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression) || node.expression.name.text !== 'eval') continue;
    const [body] = node.arguments;
    if (body !== undefined && ts.isPropertyAccessExpression(body) && body.name.text === 'source') continue;
    const { line } = module.ast.getLineAndCharacterOfPosition(node.getStart(module.ast));
    found.push(`${module.file}:${line + 1}: an EVAL of something other than a declared script's source`);
  }
  return found;
}

function parse(file: string, text: string): Module {
  return { file, text, ast: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true) };
}

describe('the script registry', () => {
  it("holds lib's scripts, no two of them sharing a name", () => {
    expect(LIB_SCRIPTS.length).toBeGreaterThan(0);
    const names = LIB_SCRIPTS.map((script) => script.name);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  it('misses no Lua in lib: every redis.call is inside a defineScript declaration or a fragment spliced into one', () => {
    const modules = libModules().map((file) => parse(relative(ROOT, file), readFileSync(file, 'utf8')));
    const fragments = splicedNames(modules);
    expect(modules.flatMap((module) => undeclaredLua(module, fragments))).toEqual([]);
  });

  it('finds what it looks for (positive control)', () => {
    const declared = parse(
      'declared.ts',
      [
        "const LUA_HELPER = `local function touch(k) return redis.call('EXISTS', k) end`;",
        "const STRAY = `return redis.pcall('GET', KEYS[1])`;",
        'const S = defineScript({ name: "s", keys: [], args: [], source: `${LUA_HELPER}\\nreturn redis.call(\'TIME\')` });',
        'client.eval(S.source, [], []);',
        'client.eval("return redis.call(\'GET\', KEYS[1])", [k], []);',
        'pipeline.eval(STRAY, [k], []);',
      ].join('\n'),
    );
    const fragments = splicedNames([declared]);
    expect([...fragments]).toEqual(['LUA_HELPER']);
    expect(undeclaredLua(declared, fragments)).toEqual([
      "declared.ts:2: const STRAY = `return redis.pcall('GET', KEYS[1])`;",
      `declared.ts:5: client.eval("return redis.call('GET', KEYS[1])", [k], []);`,
      "declared.ts:5: an EVAL of something other than a declared script's source",
      "declared.ts:6: an EVAL of something other than a declared script's source",
    ]);
  });
});
