// A PATH with every program of this one but the named ones, for a launcher that must not find redis-server.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface StrippedPath {
  /** One folder of links, to be used as PATH whole. */
  path: string;
  remove(): void;
}

/** Links every entry of every PATH folder (first one wins, as a shell would) into one folder, leaving out `names`. */
export function pathWithout(names: readonly string[], path = process.env.PATH ?? ''): StrippedPath {
  const root = mkdtempSync(join(tmpdir(), 'runstate-path-'));
  const bin = join(root, 'bin');
  mkdirSync(bin);
  const seen = new Set<string>(names);
  for (const dir of path.split(':').filter((entry) => entry !== '')) {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (seen.has(entry)) continue;
      seen.add(entry);
      symlinkSync(join(dir, entry), join(bin, entry));
    }
  }
  return { path: bin, remove: () => rmSync(root, { recursive: true, force: true }) };
}
