// Failures of refunds and their claim links (issue 26; src/core/refunds).
import { type FieldError, PaygateError, printable } from "./base.ts";

export const refundErrors = {
  // ── Refunds (issue 26; src/core/refunds) ──
  refundValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", "Missing or invalid refund fields", "invalid_refund_request", fieldErrors),
  /** The same for an unknown id and another merchant's or mode's refund. */
  refundNotFound: (id: string) => new PaygateError("not_found", `No refund with id '${printable(id)}'`, "refund_not_found"),
  /** The dashboard's PSBT download of a refund that has none (not BTC/LTC, no destination yet, closed, or no rails). */
  refundPsbtNotFound: (id: string) =>
    new PaygateError(
      "not_found",
      `Refund ${printable(id)} has no PSBT to sign: only a pending BTC or LTC refund with a destination has one`,
      "refund_psbt_not_found",
    ),
  nothingReceived: () =>
    new PaygateError("invalid_state", "Nothing can be refunded: no confirmed payment has arrived on this transaction", "nothing_received"),
  /** `left`: what can still be refunded, with its coin ("0.0004 BTC"). */
  refundOverLimit: (left: string, reason: "over_refundable" | "nothing_overpaid" = "over_refundable") =>
    new PaygateError(
      "invalid_state",
      reason === "nothing_overpaid"
        ? `Nothing was overpaid on this transaction; ${left} can still be refunded`
        : `The refund is more than what is left to refund: ${left} can still be refunded`,
      reason,
    ),
  refundNotPending: (state: string) =>
    new PaygateError("conflict", `The refund is ${state}, not pending: only a pending refund can change`, "refund_not_pending"),
  /** An unknown or mistyped claim link: the same for both, nothing says which links exist. */
  refundClaimNotFound: () => new PaygateError("not_found", "This refund link is not valid; ask the merchant for a new one", "refund_claim_not_found"),
  refundClaimUsed: () =>
    new PaygateError("gone", "This refund link was already used: the refund has its address; contact the merchant to change it", "refund_claim_used"),
  refundClaimExpired: () => new PaygateError("gone", "This refund link has expired; ask the merchant for a new one", "refund_claim_expired"),
  refundClaimClosed: () => new PaygateError("gone", "This refund was canceled or already paid; nothing more to do here", "refund_claim_closed"),
  // Refund rails (src/rails/refunds): the unsigned transaction a merchant signs.
  /** `toCustomer`, `fee`, `dust`: amounts with their coin ("0.00000100 LTC"); `nothing`: the fee takes it all. */
  refundBelowDust: (toCustomer: string, fee: string, dust: string, nothing: boolean) =>
    new PaygateError(
      "invalid_state",
      nothing
        ? `The network fee of ${fee} takes all of this refund: nothing would reach the customer; refund more, or choose a lower fee_rate`
        : `After its network fee of ${fee}, the refund would pay the customer ${toCustomer}, below the dust limit of ${dust} that nodes relay; refund more, or choose a lower fee_rate`,
      "refund_below_dust",
    ),
  /** The payment's receipts cannot be spent by a refund transaction (`why` says what is missing). */
  refundNotSpendable: (why: string) => new PaygateError("invalid_state", `No refund transaction can be built: ${why}`, "refund_not_spendable"),
  /** mark_paid with a chain transaction that already closed another refund (issue 42): one transaction closes one refund. */
  refundTxHashTaken: (hash: string) =>
    new PaygateError(
      "conflict",
      `The transaction ${printable(hash)} already closed another refund: one chain transaction closes one refund; pay this refund with a transaction of its own`,
      "refund_tx_hash_taken",
    ),
};
