// Fake upstream servers for the local stack, the tests and the bench.
export { startFakeSyrve, type FakeSyrve } from './syrve-upstream.ts';
export { startFakeBreachedPasswords, KNOWN_BREACHED_PASSWORDS, type FakeBreachedPasswords } from './breached-passwords.ts';
export { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from './webhook-receiver.ts';
