// The one error every key builder throws on a bad segment; its message names the field, never the value.

/** Thrown when a key segment fails validation. The offending value is never part of the message or
 * any property, so a secret passed by mistake cannot reach a log through this error. */
export class KeyError extends Error {
  constructor(
    /** Which input was refused, e.g. `orgId` (a name from our code, never user data). */
    readonly field: string,
    /** What it should have been, e.g. `a UUID`. */
    readonly expected: string,
  ) {
    super(`invalid key segment ${field}: expected ${expected}`);
    this.name = 'KeyError';
  }
}
