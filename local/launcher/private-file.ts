// Files of the data folder that hold secrets: written whole (then renamed) and 0600 from creation, read as absent when missing.
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';

/** Write then rename, so a crash never leaves half a file; the mode is set at creation, before any secret is written. */
export async function writePrivateFile(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  // The umask may have narrowed the mode further; never wider.
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}

/** The file's text, or undefined when it does not exist; any other read error is thrown. */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
