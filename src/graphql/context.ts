// What every resolver receives, and what a Transaction resolves from.
import type { PaygateError } from "../core/errors.ts";
import type { PaymentGateway } from "../core/gateway.ts";
import type { TransactionDetails } from "../core/transactions/details.ts";
import type { TransactionReceipt } from "../core/transactions/receipts.ts";
import type { TransactionRecord } from "../core/records/transactions.ts";
import type { TransactionView } from "../core/transactions/view.ts";

export interface GraphQLContext {
  gateway: PaymentGateway;
  /** The key from `Authorization: Bearer …`, when sent. */
  bearerToken: string | undefined;
  /** The client's address (as REST reads it), for the audit log of changes made with a key. */
  clientAddress: string | null;
  /** The `Idempotency-Key` header, when sent: it applies to the request's mutation. */
  idempotencyKey: string | undefined;
  /** The X-Request-Id of the HTTP request, for log lines. */
  requestId: string;
  /** Tells the request log which merchant the request acted for. */
  seenMerchant(id: number): void;
  /** Tells the HTTP layer the reasons of the errors answered (failed authentications count against the address: src/edge/rate-limits.ts). */
  seenErrorReasons(reasons: string[]): void | Promise<void>;
  /**
   * Counts `hits` more requests against the caller's rate-limit bucket (a request's mutation fields
   * after its first: mutation-limits.ts); the refusal when that went over the limit. Absent without limits.
   */
  countMoreRequests?(hits: number): Promise<PaygateError | null>;
}

export interface TransactionParent {
  record: TransactionRecord;
  /** Its currencies, quote and payment state, as the core describes them for every API. */
  view: TransactionView;
  /** Whether the caller holds the secret key, and so may see the customer. */
  customerVisible: boolean;
  /** Whether the caller is shown the client secret: initialize's caller and secret-key readers. */
  clientSecretVisible: boolean;
  /** Its receipts, read only when a query asks for them: once for a whole page of a list (resolvers.ts, parentOf). */
  receipts(): Promise<TransactionReceipt[]>;
  /** What a mutation's use case already answered (its details): then no field asks the gateway again. */
  shown?: Pick<TransactionDetails, "paymentRequest" | "checkout">;
}
