// A transaction's client secret and the hosted checkout's address built from it.
import type { CoreDeps } from "../deps.ts";
import { newClientSecret } from "../secrets.ts";
import type { TransactionRecord } from "../records/transactions.ts";

export interface CheckoutLink {
  /** `<transaction id>_secret_<32 base62>`: reads and pays this one transaction. */
  clientSecret: string;
  /** `{PAYGATE_PUBLIC_URL}/checkout/<client secret>`. */
  checkoutUrl: string;
}

/**
 * Opens the stored client secret. A transaction made before client secrets gets one now, kept
 * for good, so every later read shows the same one.
 */
export async function checkoutOf(deps: Pick<CoreDeps, "stores" | "secrets" | "publicUrl">, t: TransactionRecord): Promise<CheckoutLink> {
  const sealed = t.clientSecretEnc ?? (await deps.stores.transactions.keepClientSecret(t.id, deps.secrets.seal(newClientSecret(t.id))));
  return checkoutLink(deps.publicUrl, deps.secrets.open(sealed));
}

export function checkoutLink(publicUrl: string, clientSecret: string): CheckoutLink {
  // The secret's characters (hex, '-', '_', base62) need no escaping in a path.
  return { clientSecret, checkoutUrl: `${publicUrl}/checkout/${clientSecret}` };
}
