// The fake DNS-over-HTTPS resolver (docs/design/local-stack.md#the-local-stack).
export { startFakeDoh, type FakeDoh } from './server.ts';
