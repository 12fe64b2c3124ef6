// Idempotency-Keys as remembered with the transaction their request made (src/core/transactions/idempotency.ts).
// src/db/stores/idempotency.ts implements it.

/** An Idempotency-Key as it is remembered with the transaction its request made (src/core/transactions/idempotency.ts). */
export interface IdempotencyRecord {
  merchantId: number;
  isLive: boolean;
  key: string;
  /** `initialize`, `initiate:<transaction id>` or `refund:<transaction id>`. */
  operation: string;
  fingerprint: string;
}

export interface IdempotencyStore {
  /** What the key of this merchant and mode was used for, or null when it is new. */
  find(
    merchantId: number,
    isLive: boolean,
    key: string,
  ): Promise<{ operation: string; fingerprint: string; transactionId: string; refundId: string | null } | null>;
  /** Forgets keys made before `before`; returns how many. */
  pruneBefore(before: Date): Promise<number>;
}
