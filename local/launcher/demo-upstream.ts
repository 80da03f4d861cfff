// Starts the fake iiko/Syrve RMS server that npm start's demo connection points at: 127.0.0.1, on its previous port when it is free.
import { startFakeSyrve, type FakeSyrve } from '../fakes/index.ts';
import type { Teardown } from '../stack/teardown.ts';

/**
 * `preferredPort` is the one the demo connection already stores, so a restart leaves the row alone; taken (or the app's own
 * `avoidPort`), a free port is used instead and the seed moves the row's base URL. The accounts route lets the banner's
 * rotation walkthrough change the password on the "server" first, as an operator would.
 */
export async function startDemoUpstream(preferredPort: number | undefined, avoidPort: number, stack: Teardown): Promise<FakeSyrve> {
  let fake: FakeSyrve | undefined;
  if (preferredPort !== undefined && preferredPort !== avoidPort) {
    fake = await startFakeSyrve({ accountsRoute: true, port: preferredPort }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') return undefined;
      throw error;
    });
  }
  fake ??= await startFakeSyrve({ accountsRoute: true });
  if (Number(new URL(fake.url).port) === avoidPort) {
    // The app binds after this, so a free port picked now may be the app's own: take another before letting this one go.
    const other = await startFakeSyrve({ accountsRoute: true });
    await fake.close();
    fake = other;
  }
  stack.add('fake Syrve upstream', fake.close);
  return fake;
}
