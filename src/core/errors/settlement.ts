// Failures of settlement (issue 40; src/core/settlement, docs/settlement.md).
import { type FieldError, PaygateError, printable } from "./base.ts";

export const settlementErrors = {
  consolidationValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", "Missing or invalid consolidation fields", "invalid_consolidation_request", fieldErrors),
  /** The same for an unknown id and another merchant's or mode's consolidation. */
  consolidationNotFound: (id: string) => new PaygateError("not_found", `No consolidation with id '${printable(id)}'`, "consolidation_not_found"),
  /** `what`: "LTC on litecoin in test mode". */
  nothingToConsolidate: (what: string) =>
    new PaygateError(
      "invalid_state",
      `Nothing to consolidate: no settled ${what} payment has an output that is unspent, unrefunded and in no other consolidation`,
      "nothing_to_consolidate",
    ),
  /** `total`, `fee`, `dust`: amounts with their coin. */
  consolidationBelowDust: (total: string, fee: string, dust: string) =>
    new PaygateError(
      "invalid_state",
      `The outputs hold ${total}; after the network fee of ${fee} the destination would receive less than the dust limit of ${dust} that nodes relay; choose a lower fee_rate or wait for more payments`,
      "consolidation_below_dust",
    ),
  consolidationNotOpen: (state: string) =>
    new PaygateError("conflict", `The consolidation is ${state}, not open: only an open consolidation can be canceled`, "consolidation_not_open"),
  /** Another consolidation took one of the outputs meanwhile (a second request at once). */
  consolidationOutputsTaken: () =>
    new PaygateError(
      "conflict",
      "Another consolidation took some of these outputs meanwhile; nothing was created, try again",
      "consolidation_outputs_taken",
    ),
  /** `node`: "the LTC test node (PAYGATE_LTC_TEST_NODE_URL)". */
  consolidationNodeUnavailable: (node: string, why: string) =>
    new PaygateError(
      "upstream_unavailable",
      `${node} cannot be asked which outputs are unspent (${why}); nothing was created, retry once it answers`,
      "chain_node_unavailable",
    ),
  // ── Deposit forwarders (EVM) ──
  forwarderValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", "Missing or invalid forwarder settlement fields", "invalid_forwarder_setting", fieldErrors),
  flushValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", "Missing or invalid flush fields", "invalid_flush_request", fieldErrors),
  /** `what`: "Ethereum Sepolia testnet (test mode)"; `variable`: the configuration that is missing. */
  forwardersNotConfigured: (what: string, variable: string) =>
    new PaygateError(
      "upstream_unavailable",
      `Deposit forwarders are not configured for ${what}: the operator must set ${variable}`,
      "forwarders_not_configured",
    ),
  /** The configured factory's code is not paygate's (or the node cannot say). */
  forwarderFactoryInvalid: (variable: string, why: string) =>
    new PaygateError("upstream_unavailable", `The forwarder factory configured in ${variable} cannot be used: ${why}`, "forwarder_factory_invalid"),
  forwarderNodeUnavailable: (node: string, why: string) =>
    new PaygateError(
      "upstream_unavailable",
      `${node} cannot be asked (${printable(why)}); nothing was changed, retry once it answers`,
      "chain_node_unavailable",
    ),
  flushRuleValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", "Missing or invalid flush rule fields", "invalid_flush_rule", fieldErrors),
  flushRuleNotFound: (network: string) =>
    new PaygateError("not_found", `No flush rule for network '${printable(network)}' in this mode`, "flush_rule_not_found"),
  forwarderSettingNotFound: (network: string) =>
    new PaygateError("not_found", `No forwarder setting for network '${printable(network)}' in this mode`, "forwarder_setting_not_found"),
  nothingToFlush: (what: string) =>
    new PaygateError(
      "invalid_state",
      `Nothing to flush: no successful ${what} payment past its finality depth has a forwarder that is not flushed yet`,
      "nothing_to_flush",
    ),
  flushForwardersTaken: () =>
    new PaygateError("conflict", "Another flush took some of these forwarders meanwhile; nothing was sent, try again", "flush_forwarders_taken"),
  /** `payer`: its address; `shortfall`: with its coin. */
  feePayerTooLow: (payer: string, balance: string, needed: string) =>
    new PaygateError(
      "upstream_unavailable",
      `The fee payer ${payer} holds ${balance}, less than the ${needed} this flush may cost; nothing was sent: the operator must top it up`,
      "fee_payer_too_low",
    ),
  flushNotFound: (id: string) => new PaygateError("not_found", `No flush with id '${printable(id)}'`, "flush_not_found"),
  // ── Recorded sweeps ──
  sweepRecordValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", "Missing or invalid sweep fields", "invalid_sweep_request", fieldErrors),
  /** `node`: "The Ethereum Sepolia testnet node (PAYGATE_ETH_TEST_RPC_URL)". */
  sweepTransactionNodeUnavailable: (node: string, why: string) =>
    new PaygateError(
      "upstream_unavailable",
      `${node} cannot be asked about the sweep's transactions (${printable(why)}); nothing was recorded, retry once it answers`,
      "chain_node_unavailable",
    ),
  sweepTransactionNotFound: (hash: string, node: string) =>
    new PaygateError(
      "not_found",
      `${node} does not know the transaction ${printable(hash)}: check the hash and the network (and the mode of the key); nothing was recorded`,
      "sweep_transaction_not_found",
    ),
  /** `why`: "is not mined yet", "reverted". */
  sweepTransactionNotFinal: (hash: string, why: string) =>
    new PaygateError(
      "conflict",
      `The transaction ${printable(hash)} ${why}: only a mined, successful transaction is a sweep; nothing was recorded`,
      "sweep_transaction_not_mined",
    ),
  sweepNotFromPaymentAddress: (hash: string, from: string, mode: string) =>
    new PaygateError(
      "validation_error",
      `The transaction ${printable(hash)} was sent from ${printable(from)}, which is not the address of any of the merchant's ${mode} payments on that network: a sweep moves funds off a payment address; nothing was recorded`,
      "sweep_not_from_payment_address",
    ),
  /** `why`: what the transaction or top-up does instead. */
  sweepTransactionInvalid: (hash: string, why: string) =>
    new PaygateError("validation_error", `The transaction ${printable(hash)} ${why}; nothing was recorded`, "invalid_sweep_transaction"),
  /** Two requests at once gave one top-up to two sweeps: the other request's insert won. */
  sweepTopUpTaken: (hash: string) =>
    new PaygateError(
      "conflict",
      `The top-up ${printable(hash)} was recorded with another sweep meanwhile; the request's other sweeps were recorded: post this sweep again without it`,
      "sweep_top_up_taken",
    ),
  sweepNotFound: (id: string) => new PaygateError("not_found", `No sweep with id '${printable(id)}'`, "sweep_not_found"),
  // ── Sweep plans ──
  sweepPlanValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", "Missing or invalid sweep plan parameters", "invalid_sweep_plan_request", fieldErrors),
  /** `node`: "The Ethereum Sepolia testnet node (PAYGATE_ETH_TEST_RPC_URL)". */
  sweepNodeUnavailable: (node: string, why: string) =>
    new PaygateError(
      "upstream_unavailable",
      `${node} cannot be asked what the payment addresses hold (${printable(why)}); retry once it answers`,
      "chain_node_unavailable",
    ),

  // ── Own addresses (TRON) ──
  ownAddressValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", "Missing or invalid own-address settlement fields", "invalid_own_address_setting", fieldErrors),
  ownAddressSettingNotFound: (network: string) =>
    new PaygateError("not_found", `No own-address setting for network '${printable(network)}' in this mode`, "own_address_setting_not_found"),
  /** `what`: "USDT on TRON Nile testnet". */
  ownAddressesFull: (what: string, addresses: number, amounts: number) =>
    new PaygateError(
      "upstream_unavailable",
      `Every unique amount of the merchant's ${addresses} own ${what} address${addresses === 1 ? "" : "es"} is held by an open payment (${amounts} per address); retry once one closes, or raise the address count`,
      "own_addresses_full",
    ),
  ownAddressesBusy: () =>
    new PaygateError("upstream_unavailable", "Too many payments are taking unique amounts at once; retry shortly", "own_addresses_busy"),
  unmatchedReceiptValidation: (fieldErrors: FieldError[]) =>
    new PaygateError("validation_error", "Missing or invalid unmatched receipt fields", "invalid_unmatched_receipt_request", fieldErrors),
  unmatchedReceiptNotFound: (id: string) =>
    new PaygateError("not_found", `No unmatched receipt with id '${printable(id)}'`, "unmatched_receipt_not_found"),
  unmatchedReceiptNotOpen: (state: string) =>
    new PaygateError(
      "conflict",
      `The unmatched receipt is ${state}, not open: only an open one can be assigned or refunded`,
      "unmatched_receipt_not_open",
    ),
  /** The transaction cannot take the receipt: `why` says which of network, coin or address differ. */
  unmatchedReceiptMismatch: (why: string) =>
    new PaygateError("conflict", `The unmatched receipt cannot be assigned to this transaction: ${why}`, "unmatched_receipt_mismatch"),
};
