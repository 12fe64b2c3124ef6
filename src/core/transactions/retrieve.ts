// Reading one transaction, for checkout pages (public key or client secret) and merchants (secret key).
import type { CoreDeps } from "../deps.ts";
import type { Caller } from "../credentials.ts";
import { clientSecretTransactionId } from "../secrets.ts";
import { transactionFor } from "./record.ts";
import type { TransactionRecord } from "../records/transactions.ts";

export interface RetrievedTransaction {
  transaction: TransactionRecord | null;
  caller: Caller;
}

/** Null, not an error, for another merchant's or mode's transaction: it does not exist for this caller. */
export async function retrieveTransaction(
  { stores, credentials }: Pick<CoreDeps, "stores" | "credentials">,
  bearerToken: string | undefined,
  id: string,
): Promise<RetrievedTransaction> {
  const caller = await credentials.authenticateReader(bearerToken);
  const transaction = await transactionFor(stores.transactions, caller, id);
  return { transaction, caller };
}

/** The customer's details are for the merchant's own servers only. */
export function customerVisibleTo(caller: Caller): boolean {
  return caller.keyKind === "SECRET";
}

/**
 * Who is shown the client secret when reading a transaction: the merchant's server (secret key).
 * Initialize's reply shows it too (its caller made the transaction); a client-secret holder has it.
 */
export function clientSecretVisibleTo(caller: Caller): boolean {
  // Not to a public key: it is public, and the secret (in checkout_url too) lets its holder pick the coin.
  return caller.keyKind === "SECRET" || caller.keyKind === "CLIENT_SECRET";
}

/**
 * Whether an initiate that succeeded was made with the secret key: a token of the client secret's
 * form can only have passed as a client secret (authenticateInitiator decides by form).
 */
export function initiatedWithSecretKey(bearerToken: string | undefined): boolean {
  return bearerToken === undefined || clientSecretTransactionId(bearerToken) === null;
}
