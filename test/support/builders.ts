// Request bodies the tests send, each built from one place: a test names only what it is about (an
// amount, a currency, a customer, a bad field) and takes the rest from here.

/** What initialize takes (spec 4.1; src/core/transactions/requests.ts): loose, so a test may send what the API refuses. */
export interface InitializeOrder {
  customer: { email: string; name?: string | null };
  currency: string;
  amount: string;
  [field: string]: unknown;
}

/**
 * An initialize body: Ada's order of USD 100 unless `overrides` says otherwise. `customer` replaces the
 * whole customer; any other field (description, meta, return_url, payment_link, public_key) is added as given.
 */
export function initializeBody(overrides: Partial<InitializeOrder> = {}): InitializeOrder {
  return { customer: { email: "ada@example.com" }, currency: "USD", amount: "100", ...overrides };
}
