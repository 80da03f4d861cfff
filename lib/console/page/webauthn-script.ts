// @simplewebauthn/browser's own browser bundle, served from /console/assets/webauthn.js as the package ships it: a
// classic script that sets globalThis.SimpleWebAuthnBrowser, whose startRegistration and startAuthentication the
// console's script calls. Imported by path, not by the package's name: the package's exports do not list the bundle,
// and each runtime's `?raw` provider (docs/console.md#how-it-is-built) reads a file by its path.
import WEBAUTHN_SCRIPT from '../../../node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js?raw';

export { WEBAUTHN_SCRIPT };
