// Whether the organisation's role check admitted the caller of one request: what the rate limiter needs to know before it
// spends a tenant's quota, fills its plan or shows its fields (docs/design/limits.md#outsiders-spend-nothing).

/**
 * Settles once per request: true when the role check a route started (authorizeOrgAdmin) admitted the caller, false
 * when it refused them, failed, or no role check will come (the principal was asked without one, or the route answered
 * without one: a validation failure, a 404). Never rejects.
 */
export class RoleAdmission {
  readonly #outcome: Promise<boolean>;
  #settle!: (admitted: boolean) => void;
  #decided = false;
  #refusal: unknown;

  constructor() {
    this.#outcome = new Promise<boolean>((resolve) => {
      this.#settle = resolve;
    });
  }

  /** The route's role check; the first one noted decides (a route checks one organisation once). */
  note(check: Promise<unknown>): void {
    if (this.#decided) return;
    this.#decided = true;
    check.then(
      () => this.#settle(true),
      (error: unknown) => {
        this.#refusal = error;
        this.#settle(false);
      },
    );
  }

  /** No role check will be noted for this request from now on. */
  close(): void {
    if (this.#decided) return;
    this.#decided = true;
    this.#settle(false);
  }

  admitted(): Promise<boolean> {
    return this.#outcome;
  }

  /** What the role check refused the caller with (403, 400, 503 …), once admitted() said false; undefined if none ran. */
  refusal(): unknown {
    return this.#refusal;
  }
}
