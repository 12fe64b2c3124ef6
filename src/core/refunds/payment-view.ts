// How to pay a pending refund (issue 26; docs/refunds.md): what the refund rails build for it (a PSBT,
// an EVM transaction, the network fee), else the payment URI and QR alone, shown with the refund.
import { errors, PaygateError } from "../errors.ts";
import type { Decimal } from "../money/amounts.ts";
import { type CryptoCurrency, cryptoById } from "../money/currencies.ts";
import { networkOrDefault } from "../networks.ts";
import type { RefundInstructions } from "../ports.ts";
import type { TransactionRecord } from "../records/transactions.ts";
import { type RefundPaymentView, type RefundView, refundView } from "./view.ts";
import type { RefundRecord } from "../records/refunds.ts";
import type { RefundDeps } from "./owners.ts";

/**
 * What the refund rails said: their instructions, or why they could build none (outputs a transaction
 * cannot spend, such as the test helper's, or a node that does not answer); null while none are set up.
 */
export type Instructions = { ok: true; value: RefundInstructions } | { ok: false; problem: string; reason: string } | null;

/** A refund too small to pay once the network fee is taken is the merchant's input to fix: refused, not shown. */
const REFUSED_AT_CREATION = new Set(["refund_below_dust"]);

export async function instructionsFor(
  deps: RefundDeps,
  t: TransactionRecord,
  crypto: CryptoCurrency,
  network: string,
  destination: string,
  amount: Decimal,
  feeRate: Decimal | null,
  deductNetworkFee: boolean,
): Promise<Instructions> {
  if (!deps.refundPayments || t.walletId === null || t.paymentAddress === null) return null;
  const settlementAddress = await settlementSender(deps, t);
  // A payment to a deposit forwarder or to an own address (TRON) has no index of the key, and needs none: the
  // refund is paid from the settlement address, or from the own address that holds the money.
  if (t.derivationIndex === null && settlementAddress === null && t.ownAddressIndex === null) return null;
  const receipts = await deps.stores.transactions.receipts(t.id);
  const request = {
    coin: crypto.slug,
    network,
    isLive: t.isLive,
    walletId: t.walletId,
    derivationIndex: t.derivationIndex,
    paymentAddress: t.paymentAddress,
    receipts: receipts.filter((r) => r.status === "CONFIRMED").map((r) => ({ key: r.key, txHash: r.txHash, amount: r.amount.toFixed() })),
    destination,
    amount: amount.toFixed(),
    feeRate: feeRate?.toFixed() ?? null,
    deductNetworkFee,
    settlementAddress,
  };
  try {
    return { ok: true, value: await deps.refundPayments.instructions(request) };
  } catch (error) {
    if (!(error instanceof PaygateError)) throw error;
    return { ok: false, problem: error.message, reason: error.reason };
  }
}

/**
 * The settlement address a payment made to a deposit forwarder is refunded from (issue 40): the
 * forwarder can send only there, so that is where the money is (after the flush); null for a payment
 * to an address of the merchant's key.
 */
export async function settlementSender(deps: Pick<RefundDeps, "stores">, t: TransactionRecord): Promise<string | null> {
  if (t.paymentAddress === null) return null;
  const [deposit] = await deps.stores.forwarders.depositsOf([t.id]);
  return deposit !== undefined && deposit.address.toLowerCase() === t.paymentAddress.toLowerCase() ? deposit.destination : null;
}

/** What the view says of a refund paid from the settlement address; null when paid from the payment address. */
function paidFromOf(settlementAddress: string | null): RefundPaymentView["paid_from"] {
  if (settlementAddress === null) return null;
  return {
    kind: "settlement_address",
    address: settlementAddress,
    note:
      "The payment went to a deposit forwarder, which can send only to the settlement address: pay the refund from the " +
      "settlement address, once the forwarder is flushed, or from the merchant's own funds there.",
  };
}

/** Instructions at creation: a refund the rails refuse as too small is refused with their message. */
export function refusedAtCreation(instructions: Instructions): void {
  if (instructions && !instructions.ok && REFUSED_AT_CREATION.has(instructions.reason)) {
    throw errors.refundValidation([{ field: "amount", message: instructions.problem }]);
  }
}

/**
 * The refund object, with how to pay it while it is pending and has a destination. When the rails
 * build nothing, the payment URI and QR alone (to pay from elsewhere), with the rails' reason.
 */
export async function shown(deps: RefundDeps, r: RefundRecord, known?: Instructions, refundUrl: string | null = null): Promise<RefundView> {
  const coin = cryptoById(r.transaction.paymentCurrencyId ?? 0);
  if (r.state !== "pending" || r.destination === null || !coin) return refundView(r, { refundUrl });
  const network = networkOrDefault(coin.slug, r.transaction.paymentNetwork);
  const paidFrom = paidFromOf(await settlementSender(deps, r.transaction));
  const instructions = known ?? (await instructionsFor(deps, r.transaction, coin, network, r.destination, r.amount, r.feeRate, r.deductNetworkFee));
  if (instructions === null) return refundView(r, { refundUrl });
  if (!instructions.ok) {
    const uri = deps.rails.paymentUri(coin, r.isLive, r.destination, r.amountToCustomer, network);
    const payment: RefundPaymentView = {
      uri,
      qr: await deps.qr.dataUrl(uri),
      psbt: null,
      network_fee: null,
      evm_transaction: null,
      gas_needed: null,
      key_origin_missing: null,
      paid_from: paidFrom,
      problem: instructions.problem,
    };
    return refundView(r, { refundUrl, payment });
  }
  const built = instructions.value;
  const payment: RefundPaymentView = {
    uri: built.uri,
    qr: await deps.qr.dataUrl(built.uri),
    psbt: built.psbt,
    network_fee: built.networkFee,
    evm_transaction: built.evmTransaction,
    gas_needed: built.gasNeeded,
    key_origin_missing: built.keyOriginMissing,
    paid_from: paidFrom,
    problem: null,
  };
  return refundView(r, { refundUrl, payment });
}
