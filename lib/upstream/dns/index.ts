// Public surface of the DNS-over-HTTPS client (docs/design/tenants.md#domain-verification).
export { lookupTxt, txtText } from './doh-txt.ts';
