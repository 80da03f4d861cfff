// The dev mailbox: the local stack's Notifier writes each message as one JSON file (0600) in a folder a developer can
// read (npm start prints it) and tests read through `readMailbox`. Nothing is sent anywhere.
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { uuidv7 } from 'uuidv7';
import type { Notifier, OutgoingMessage } from '../../lib/notify/notifier.ts';
import { readIfExists, writePrivateFile } from '../launcher/private-file.ts';

export interface MailboxMessage extends OutgoingMessage {
  sentAtUtc: string;
}

export function createFolderMailbox(dir: string): Notifier {
  return {
    async send(message) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      // UUIDv7 names sort by time, so the newest message is the last file.
      const stored: MailboxMessage = { ...message, sentAtUtc: new Date().toISOString() };
      await writePrivateFile(join(dir, `${uuidv7()}.json`), `${JSON.stringify(stored, null, 2)}\n`);
    },
  };
}

/** Every message in the folder, oldest first (none when the folder does not exist yet). */
export async function readMailbox(dir: string): Promise<MailboxMessage[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const messages: MailboxMessage[] = [];
  for (const name of names) {
    const text = await readIfExists(join(dir, name));
    if (text !== undefined) messages.push(JSON.parse(text) as MailboxMessage);
  }
  return messages;
}
