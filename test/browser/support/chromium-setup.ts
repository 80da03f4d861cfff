// The browser project's global setup: makes sure there is a Chromium to drive, so `npm test` on a fresh machine needs no
// step before it. Installs Debian's package when running as root; anywhere else it fails with one line saying what to do.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CHROMIUM } from './chromium.ts';

const INSTALL = 'apt-get install -y chromium';

export default function provideChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const fix = `as root run \`${INSTALL}\`, or set CHROMIUM_PATH to a Chromium`;
  if (process.env.CHROMIUM_PATH !== undefined) throw new Error(`CHROMIUM_PATH=${CHROMIUM} does not exist: ${fix}`);
  if (process.getuid?.() !== 0) throw new Error(`${CHROMIUM} is missing and only root can install it: ${fix}`);
  console.log(`browser tests: ${CHROMIUM} is missing; installing Debian's chromium (${INSTALL})`);
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (error) {
    throw new Error(`\`${INSTALL}\` failed (${(error as Error).message.split('\n')[0]}): ${fix}`, { cause: error });
  }
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is still missing after \`${INSTALL}\`: ${fix}`);
}
