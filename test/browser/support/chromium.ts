// Headless Chromium from Debian's package (the browser project's global setup, ./chromium-setup.ts, installs it), driven
// by playwright-core: one browser per test file, a fresh profile folder each time, and Chromium's own background traffic
// switched off (nothing leaves loopback).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium, or the one CHROMIUM_PATH names. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  // Fails, never skips: the browser tests are part of npm test.
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: as root run \`apt-get install -y chromium\`, or set CHROMIUM_PATH`);
  const profile = await mkdtemp(join(tmpdir(), 'runstate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    acceptDownloads: true,
    viewport: { width: 1360, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}
