// The claim link (GET/POST /refund/:token): a refund made without a destination is sent to the address
// the customer gives there, checked for the coin and network, once.
import { errors, type FieldError } from "../errors.ts";
import { Decimal } from "../money/amounts.ts";
import { type CryptoCurrency, cryptoById } from "../money/currencies.ts";
import { networkOrDefault } from "../networks.ts";
import { hashKey } from "../secrets.ts";
import type { RefundChange } from "../stores/refunds.ts";
import { CLAIM_TOKEN, destinationProblem } from "./rules.ts";
import type { RefundRecord } from "../records/refunds.ts";
import type { RefundDeps } from "./owners.ts";
import { instructionsFor } from "./payment-view.ts";

/** What the claim page shows: the refund's coin, network and amount, or why the link is refused. */
export type ClaimState =
  | { ok: true; refund: RefundRecord; coin: CryptoCurrency; network: string; amount: string }
  | { ok: false; status: number; message: string };

function refusal(error: { code: string; message: string }): ClaimState {
  return { ok: false, status: error.code === "gone" ? 410 : 404, message: error.message };
}

/** The refund a claim link names, checked: unknown, used, closed or expired links are refused. */
export async function claimState(deps: Pick<RefundDeps, "stores" | "clock">, token: string): Promise<ClaimState> {
  const found = CLAIM_TOKEN.test(token) ? await deps.stores.refunds.findByClaimHash(hashKey(token)) : null;
  if (!found) return refusal(errors.refundClaimNotFound());
  if (found.claimedAt !== null || found.destination !== null) return refusal(errors.refundClaimUsed());
  if (found.state !== "pending") return refusal(errors.refundClaimClosed());
  if (found.claimExpiresAt !== null && found.claimExpiresAt.getTime() <= deps.clock.now().getTime()) return refusal(errors.refundClaimExpired());
  const coin = cryptoById(found.transaction.paymentCurrencyId ?? 0);
  if (!coin) return refusal(errors.refundClaimNotFound());
  return {
    ok: true,
    refund: found,
    coin,
    network: networkOrDefault(coin.slug, found.transaction.paymentNetwork),
    amount: found.amountToCustomer.toFixed(),
  };
}

export type ClaimOutcome = { ok: true; refund: RefundRecord } | { ok: false; status: number; message: string; fieldError?: FieldError };

/** The customer's address for a claim link: checked for the coin and network, accepted once. */
export async function claimRefund(deps: RefundDeps, token: string, address: unknown): Promise<ClaimOutcome> {
  const state = await claimState(deps, token);
  if (!state.ok) return state;
  const text = typeof address === "string" ? address.trim() : "";
  const { refund, coin, network } = state;
  const problem =
    text === ""
      ? { field: "address", message: `Enter the ${coin.slug} address to receive the refund` }
      : text.length > 200
        ? { field: "address", message: "address is too long to be an address" }
        : destinationProblem(deps.rails, coin, refund.isLive, network as Parameters<typeof destinationProblem>[3], text, "address");
  if (problem) return { ok: false, status: 400, message: problem.message, fieldError: problem };
  const instructions = await instructionsFor(deps, refund.transaction, coin, network, text, refund.amount, refund.feeRate, refund.deductNetworkFee);
  const change: RefundChange = { destination: text, claimedAt: deps.clock.now() };
  if (instructions?.ok) {
    change.networkFee = instructions.value.networkFee === null ? null : new Decimal(instructions.value.networkFee);
    change.amountToCustomer = new Decimal(instructions.value.amountToCustomer);
  }
  const claimed = await deps.stores.refunds.change(refund.id, "pending", change, null, true);
  if (!claimed) {
    const again = await claimState(deps, token);
    return again.ok ? refusal(errors.refundClaimUsed()) : again;
  }
  return { ok: true, refund: claimed };
}
