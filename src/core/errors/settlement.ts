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
};
