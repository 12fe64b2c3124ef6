// What every resolver receives, and what a Transaction resolves from.
import type { PaymentGateway } from "../core/gateway.ts";
import type { TransactionRecord } from "../core/transactions/record.ts";

export interface GraphQLContext {
  gateway: PaymentGateway;
  /** The key from `Authorization: Bearer …`, when sent. */
  bearerToken: string | undefined;
  /** The `Idempotency-Key` header, when sent: it applies to the request's mutation. */
  idempotencyKey: string | undefined;
}

export interface TransactionParent {
  record: TransactionRecord;
  /** Whether the caller holds the secret key, and so may see the customer. */
  customerVisible: boolean;
}
