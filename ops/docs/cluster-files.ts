// The test files the cluster run takes (`throughCluster` in vitest.config.ts), matched as vitest matches its includes:
// docs/design/local-stack.md quotes their number.
import { readdirSync } from 'node:fs';
import { throughCluster } from '../../vitest.config.ts';

const ROOT = new URL('../../', import.meta.url);

/**
 * One include pattern as a RegExp. The patterns there use `**\/`, `*` and `{a,b}` only: ten lines here, where a glob
 * library would be a dependency for one count.
 */
function globRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i]!;
    if (glob.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 2;
    } else if (char === '*') source += '[^/]*';
    else if (char === '{') source += '(?:';
    else if (char === '}') source += ')';
    else if (char === ',') source += '|';
    else source += char.replace(/[.+?^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

export function clusterTestFiles(): string[] {
  const patterns = throughCluster.map(globRegExp);
  const files = readdirSync(new URL('test/', ROOT), { recursive: true, encoding: 'utf8' }).map(
    (path) => `test/${path.split('\\').join('/')}`,
  );
  return files.filter((file) => patterns.some((pattern) => pattern.test(file))).sort();
}
