// `Deps`' fields as lib/deps.ts declares them, each with its doc comment: docs/design/layers.md lists them from here.
import { readFileSync } from 'node:fs';
import ts from 'typescript';

const DEPS_PATH = new URL('../../lib/deps.ts', import.meta.url);

export interface DepsField {
  name: string;
  /** The field's doc comment, one line. */
  doc: string;
}

export function depsFields(): DepsField[] {
  const source = ts.createSourceFile('lib/deps.ts', readFileSync(DEPS_PATH, 'utf8'), ts.ScriptTarget.Latest, true);
  const deps = source.statements.find(
    (node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === 'Deps',
  );
  if (deps === undefined) throw new Error('lib/deps.ts declares no interface Deps');
  return deps.members.map((member) => {
    const name = member.name !== undefined && ts.isIdentifier(member.name) ? member.name.text : member.getText(source);
    const doc = ts
      .getJSDocCommentsAndTags(member)
      .filter(ts.isJSDoc)
      .map((jsDoc) => ts.getTextOfJSDocComment(jsDoc.comment) ?? '')
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    // The docs list every field with what it is for, so a field without its comment is refused here.
    if (doc === '') throw new Error(`lib/deps.ts: Deps.${name} has no doc comment (docs/design/layers.md lists it from there)`);
    return { name, doc };
  });
}

export function depsFieldList(): string {
  return depsFields()
    .map(({ name, doc }) => `- \`${name}\`: ${doc}`)
    .join('\n');
}
