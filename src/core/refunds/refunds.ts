// Refund use cases (issue 26; docs/refunds.md): make one on a transaction that received money, read,
// list, cancel, mark paid, and the customer's claim of an address. Rules are in rules.ts; the chain
// side (RefundPayments, the refund watcher) builds the unsigned transaction and closes refunds.
import { z } from "zod";
import { authorize, type DashboardActor, type DashboardPermission } from "../access/roles.ts";
import { auditEntry, authorOf, type AuditAction, type ChangeAuthor } from "../access/audit-log.ts";
import type { CoreDeps } from "../deps.ts";
import { DuplicateKeyError, errors, type FieldError, PaygateError } from "../errors.ts";
import { refundEvent } from "./refund-events.ts";
import { earlierRefundId, type IdempotencyScope, requestProblems, scopeOf } from "../transactions/idempotency.ts";
import { LIST_LIMIT_DEFAULT, limitParam, pageOf, parseListQuery, single } from "../lists.ts";
import type { Caller } from "../credentials.ts";
import { authorizeKey, keyAuthor } from "../merchants/key-access.ts";
import { Decimal } from "../money/amounts.ts";
import { type CryptoCurrency, cryptoById, type FiatCurrency, fiatById } from "../money/currencies.ts";
import { networkOrDefault } from "../networks.ts";
import type { RefundInstructions } from "../ports.ts";
import { hashKey, randomToken } from "../secrets.ts";
import type { AuditWrite } from "../stores/audit-log.ts";
import type { RefundChange } from "../stores/refunds.ts";
import { findTransactionFor, isTransactionId, transactionNotFoundFor } from "../transactions/record.ts";
import type { TransactionRecord } from "../records/transactions.ts";
import { parseBody } from "../transactions/requests.ts";
import {
  amountOf,
  bodyProblems,
  CLAIM_TOKEN,
  countedRefundsOf,
  DEFAULT_CLAIM_DAYS,
  destinationProblem,
  isRefundId,
  leftText,
  newRefundId,
  RefundBody,
  type RefundRequestBody,
  refundableOf,
  receivedOf,
} from "./rules.ts";
import { type RefundPaymentView, type RefundSummary, type RefundView, refundView } from "./view.ts";
import type { RefundRecord } from "../records/refunds.ts";

export type RefundDeps = Pick<
  CoreDeps,
  "stores" | "credentials" | "clock" | "prices" | "rails" | "qr" | "publicUrl" | "refundPayments" | "refundClaimDays"
>;

/** What a refund is made from, by the API or the dashboard: the transaction, the REST body, its Idempotency-Key. */
export interface RefundRequest {
  transactionId: string;
  body: unknown;
  idempotencyKey?: string;
}

/**
 * Whose refunds a call works on: a merchant in one mode, and who acts. A secret key (keyOwner) and a
 * dashboard user (dashboardOwner) each resolve to one once, after their role is checked, then call
 * the same functions below; a change's `by` (the key or the user) goes to the audit log, a read's is null.
 */
export interface RefundOwner {
  merchantId: number;
  isLive: boolean;
  by: ChangeAuthor | null;
  /** When the dashboard user last proved its password (making a refund needs it recent); null for a secret key. */
  authenticatedAt: Date | null;
}

export interface RefundOutcome {
  merchantId: number;
  refund: RefundView;
  replayed?: true;
}

const DAY_MS = 86_400_000;

/** A transaction's coin, network and fiat; null before a coin was chosen. */
function currenciesOf(t: TransactionRecord): { crypto: CryptoCurrency; fiat: FiatCurrency } | null {
  const crypto = t.paymentCurrencyId === null ? undefined : cryptoById(t.paymentCurrencyId);
  const fiat = fiatById(t.initializedCurrencyId);
  return crypto && fiat ? { crypto, fiat } : null;
}

/** A secret key's merchant and mode (a public key or client secret is refused; so is a deactivated merchant's key). */
export async function keyOwner(
  deps: Pick<RefundDeps, "credentials">,
  bearerToken: string | undefined,
  clientAddress: string | null,
  permission: Extract<DashboardPermission, "read" | "manage_refunds">,
): Promise<RefundOwner> {
  const caller: Caller = await deps.credentials.authenticateSecret(bearerToken);
  authorizeKey(caller, permission);
  const by = permission === "read" ? null : keyAuthor(caller, clientAddress);
  return { merchantId: caller.merchant.id, isLive: caller.isLive, by, authenticatedAt: null };
}

/**
 * A dashboard user's merchant in the mode the dashboard shows, after its role is checked: `read` to
 * read, `manage_refunds` to change (a deactivated merchant's changes are refused there).
 */
export function dashboardOwner(
  actor: DashboardActor,
  isLive: boolean,
  permission: Extract<DashboardPermission, "read" | "manage_refunds">,
): RefundOwner {
  authorize(actor, permission);
  return { merchantId: actor.merchantId, isLive, by: permission === "read" ? null : authorOf(actor), authenticatedAt: actor.authenticatedAt };
}

/** The audit log's entry of a dashboard user's change; none for a secret key's. */
function auditOf(deps: RefundDeps, owner: RefundOwner, action: AuditAction, target: string): AuditWrite | null {
  return owner.by === null ? null : auditEntry(owner.by, owner.merchantId, deps.clock.now(), action, target);
}

/**
 * POST /v1/transaction/:id/refunds, and the dashboard's Refund action (manage_refunds) with the
 * Idempotency-Key its form sends (one per form shown), so a double submission makes one refund.
 */
export async function createRefund(deps: RefundDeps, owner: RefundOwner, request: RefundRequest): Promise<RefundOutcome> {
  const caller = { merchant: { id: owner.merchantId }, isLive: owner.isLive };
  const parsed = parseBody(RefundBody, request.body);
  const problems = requestProblems(parsed, request.idempotencyKey);
  if (!parsed.ok || problems.length > 0) throw errors.refundValidation(problems);
  const body = parsed.value;
  const transaction = await findTransactionFor(deps.stores.transactions, request.transactionId, caller.merchant.id, caller.isLive);
  if (!transaction) throw await transactionNotFoundFor(deps.stores.transactions, caller, request.transactionId);

  const scope = scopeOf(request.idempotencyKey, caller, `refund:${transaction.id}`, body);
  const earlier = scope && (await replayOf(deps, scope));
  if (earlier) return earlier;
  try {
    return await newRefund(deps, owner, transaction, body, scope);
  } catch (error) {
    // The same key sent twice at once (a double click): the request that took the key made the refund,
    // and this one failed on the key or found nothing left to refund. It answers with that one.
    const winner = scope && (await replayOf(deps, scope));
    if (winner) return winner;
    throw error;
  }
}

async function newRefund(
  deps: RefundDeps,
  owner: RefundOwner,
  transaction: TransactionRecord,
  body: RefundRequestBody,
  scope: IdempotencyScope | null,
): Promise<RefundOutcome> {
  const caller = { merchant: { id: owner.merchantId }, isLive: owner.isLive };
  const currencies = currenciesOf(transaction);
  if (!currencies || receivedOf(transaction).lte(0)) throw errors.nothingReceived();
  const { crypto, fiat } = currencies;
  const fieldProblems = bodyProblems(body, crypto);
  const network = networkOrDefault(crypto.slug, transaction.paymentNetwork);
  let destination: string | null = null;
  if (transaction.refundAddress !== null) {
    const problem = destinationProblem(deps.rails, crypto, transaction.isLive, network, transaction.refundAddress, "refund_address");
    if (problem) fieldProblems.push({ ...problem, message: `the transaction's ${problem.message}; this refund cannot be sent there` });
    destination = transaction.refundAddress;
  }
  if (fieldProblems.length > 0) throw errors.refundValidation(fieldProblems);

  const rate = await rateFor(deps, body.valuation, transaction, crypto, fiat);
  const already = (await deps.stores.refunds.refundedAmounts([transaction.id])).get(transaction.id) ?? new Decimal(0);
  // Checked here for the message, and again under the transaction's lock as the refund is written.
  const amount = amountOf(body.amount_kind, body, transaction, crypto, fiat, rate, refundableOf(transaction, already));

  const now = deps.clock.now();
  const token = destination === null ? randomToken(32) : null;
  const days = deps.refundClaimDays ?? DEFAULT_CLAIM_DAYS;
  const feeRate = body.fee_rate === undefined || body.fee_rate === null ? null : new Decimal(body.fee_rate);
  const id = newRefundId();
  const instructions =
    destination === null
      ? null
      : await instructionsFor(deps, transaction, crypto, network, destination, amount.crypto, feeRate, body.deduct_network_fee);
  refusedAtCreation(instructions);
  const built = instructions?.ok ? instructions.value : null;
  const created = await deps.stores.refunds.create(
    {
      id,
      transactionId: transaction.id,
      merchantId: caller.merchant.id,
      isLive: caller.isLive,
      state: "pending",
      amountKind: body.amount_kind,
      amount: amount.crypto,
      fiatAmount: amount.fiat,
      fiatCurrencyId: fiat.id,
      valuation: body.valuation,
      rate,
      deductNetworkFee: body.deduct_network_fee,
      networkFee: built?.networkFee ? new Decimal(built.networkFee) : null,
      amountToCustomer: built ? new Decimal(built.amountToCustomer) : amount.crypto,
      feeRate,
      destination,
      claimTokenHash: token === null ? null : hashKey(token),
      claimExpiresAt: token === null ? null : new Date(now.getTime() + days * DAY_MS),
      createdAt: now,
    },
    (alreadyRefunded) => {
      const left = refundableOf(transaction, alreadyRefunded);
      if (amount.crypto.gt(left)) throw errors.refundOverLimit(leftText(left, crypto));
    },
    (record) => refundEvent("refund.created", record),
    scope && { ...scope },
    auditOf(deps, owner, "refund.create", `${id} of ${amount.crypto.toFixed()} ${crypto.slug} on transaction ${transaction.id}`),
  );
  const refundUrl = token === null ? null : `${deps.publicUrl}/refund/${token}`;
  return { merchantId: caller.merchant.id, refund: await shown(deps, created, instructions, refundUrl) };
}

/** The refund an earlier request with this key made, as a replay; null for a new key (409 for other parameters). */
async function replayOf(deps: RefundDeps, scope: IdempotencyScope): Promise<RefundOutcome | null> {
  const earlier = await earlierRefundId(deps.stores.idempotency, scope);
  const found = earlier === null ? null : await deps.stores.refunds.findFor(earlier, scope.merchantId, scope.isLive);
  return found && { merchantId: scope.merchantId, refund: await shown(deps, found), replayed: true };
}

/** Fiat per coin: the transaction's locked quote, or the price feed's now. */
async function rateFor(
  deps: RefundDeps,
  valuation: "locked_rate" | "current_rate",
  t: TransactionRecord,
  crypto: CryptoCurrency,
  fiat: FiatCurrency,
) {
  if (valuation === "current_rate") return (await deps.prices.quote(crypto, fiat, t.isLive)).rate;
  if (t.quoteRate === null) throw errors.nothingReceived();
  return new Decimal(t.quoteRate.toString());
}

/**
 * What the refund rails said: their instructions, or why they could build none (outputs a transaction
 * cannot spend, such as the test helper's, or a node that does not answer); null while none are set up.
 */
type Instructions = { ok: true; value: RefundInstructions } | { ok: false; problem: string; reason: string } | null;

/** A refund too small to pay once the network fee is taken is the merchant's input to fix: refused, not shown. */
const REFUSED_AT_CREATION = new Set(["refund_below_dust"]);

async function instructionsFor(
  deps: RefundDeps,
  t: TransactionRecord,
  crypto: CryptoCurrency,
  network: string,
  destination: string,
  amount: Decimal,
  feeRate: Decimal | null,
  deductNetworkFee: boolean,
): Promise<Instructions> {
  if (!deps.refundPayments || t.walletId === null || t.derivationIndex === null || t.paymentAddress === null) return null;
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
  };
  try {
    return { ok: true, value: await deps.refundPayments.instructions(request) };
  } catch (error) {
    if (!(error instanceof PaygateError)) throw error;
    return { ok: false, problem: error.message, reason: error.reason };
  }
}

/** Instructions at creation: a refund the rails refuse as too small is refused with their message. */
function refusedAtCreation(instructions: Instructions): void {
  if (instructions && !instructions.ok && REFUSED_AT_CREATION.has(instructions.reason)) {
    throw errors.refundValidation([{ field: "amount", message: instructions.problem }]);
  }
}

/**
 * The refund object, with how to pay it while it is pending and has a destination. When the rails
 * build nothing, the payment URI and QR alone (to pay from elsewhere), with the rails' reason.
 */
async function shown(deps: RefundDeps, r: RefundRecord, known?: Instructions, refundUrl: string | null = null): Promise<RefundView> {
  const coin = cryptoById(r.transaction.paymentCurrencyId ?? 0);
  if (r.state !== "pending" || r.destination === null || !coin) return refundView(r, { refundUrl });
  const network = networkOrDefault(coin.slug, r.transaction.paymentNetwork);
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
    problem: null,
  };
  return refundView(r, { refundUrl, payment });
}

async function ownRefund(deps: RefundDeps, owner: RefundOwner, id: string): Promise<RefundRecord> {
  const found = isRefundId(id) ? await deps.stores.refunds.findFor(id, owner.merchantId, owner.isLive) : null;
  if (!found) throw errors.refundNotFound(id);
  return found;
}

/** GET /v1/refunds/:id, and the dashboard's refund (any role): how to pay it while pending. */
export async function retrieveRefund(deps: RefundDeps, owner: RefundOwner, id: string): Promise<RefundOutcome> {
  return { merchantId: owner.merchantId, refund: await shown(deps, await ownRefund(deps, owner, id)) };
}

export interface TransactionRefunds {
  merchantId: number;
  refunds: RefundView[];
  amountRefundable: string | null;
}

/** GET /v1/transaction/:id/refunds and the transaction page's refunds (any role): oldest first, with what is left to refund. */
export async function transactionRefunds(deps: RefundDeps, owner: RefundOwner, transactionId: string): Promise<TransactionRefunds> {
  const transaction = await findTransactionFor(deps.stores.transactions, transactionId, owner.merchantId, owner.isLive);
  if (!transaction) {
    throw await transactionNotFoundFor(deps.stores.transactions, { merchant: { id: owner.merchantId }, isLive: owner.isLive }, transactionId);
  }
  const rows = await deps.stores.refunds.listForTransactions([transaction.id]);
  return {
    merchantId: owner.merchantId,
    refunds: rows.map((r) => refundView(r)),
    amountRefundable: summaryOf(transaction, rows).amount_refundable,
  };
}

/** Each transaction's refunds in short and what is left to refund (the transaction replies' added fields). */
export async function refundSummaries(
  deps: Pick<RefundDeps, "stores">,
  transactions: readonly TransactionRecord[],
): Promise<Map<string, RefundSummary>> {
  const rows = await deps.stores.refunds.listForTransactions(transactions.map((t) => t.id));
  const byTransaction = new Map<string, RefundRecord[]>();
  for (const row of rows) {
    const list = byTransaction.get(row.transactionId);
    if (list) list.push(row);
    else byTransaction.set(row.transactionId, [row]);
  }
  return new Map(transactions.map((t) => [t.id, summaryOf(t, byTransaction.get(t.id) ?? [])]));
}

/** A transaction's refunds in short (oldest first) and what is left to refund. */
function summaryOf(t: TransactionRecord, refunds: readonly RefundRecord[]): RefundSummary {
  return {
    refunds: refunds.map((r) => ({ id: r.id, state: r.state, amount: r.amount.toFixed(), created_at: r.createdAt.toISOString() })),
    amount_refundable: t.paymentCurrencyId === null ? null : refundableOf(t, countedRefundsOf(refunds)).toFixed(),
  };
}

const REFUND_CURSOR = /^re_[0-9a-f-]{36}$/;

export const RefundListParams = z.object({
  limit: limitParam.optional(),
  starting_after: single.regex(REFUND_CURSOR, "must be the id (re_…) of a refund of the previous page").optional(),
  transaction: single.refine(isTransactionId, "must be a transaction id (a UUID)").optional(),
});

/** GET /v1/refunds: the merchant's refunds of the key's mode, newest first, with the cursor of /v1/transactions. */
export async function listRefunds(
  deps: RefundDeps,
  owner: RefundOwner,
  params: Record<string, unknown>,
): Promise<{ merchantId: number; refunds: RefundView[]; hasMore: boolean }> {
  const query = parseListQuery(RefundListParams, params);
  let after: { createdAt: Date; id: string } | null = null;
  if (query.starting_after !== undefined) {
    const cursor = await deps.stores.refunds.findFor(query.starting_after, owner.merchantId, owner.isLive);
    if (!cursor) throw errors.unknownCursor("starting_after", query.starting_after);
    after = { createdAt: cursor.createdAt, id: cursor.id };
  }
  const limit = query.limit ?? LIST_LIMIT_DEFAULT;
  const rows = await deps.stores.refunds.page({
    merchantId: owner.merchantId,
    isLive: owner.isLive,
    transactionId: query.transaction?.toLowerCase() ?? null,
    after,
    limit: limit + 1,
  });
  const page = pageOf(rows, limit);
  return { merchantId: owner.merchantId, refunds: page.items.map((r) => refundView(r)), hasMore: page.hasMore };
}

/** A pending refund's change with its event; 409 when it is no longer pending (also when it moved in between). */
async function changePending(
  deps: RefundDeps,
  r: RefundRecord,
  change: RefundChange,
  event: "refund.succeeded" | "refund.canceled" | null,
  audit: AuditWrite | null = null,
): Promise<RefundRecord> {
  if (r.state !== "pending") throw errors.refundNotPending(r.state);
  const changed = await deps.stores.refunds.change(
    r.id,
    "pending",
    change,
    event === null ? null : (record) => refundEvent(event, record),
    false,
    audit,
  );
  if (!changed) {
    const now = await deps.stores.refunds.findFor(r.id, r.merchantId, r.isLive);
    throw errors.refundNotPending(now?.state ?? "gone");
  }
  return changed;
}

/** POST /v1/refunds/:id/cancel, and the dashboard's (manage_refunds). */
export async function cancelRefund(deps: RefundDeps, owner: RefundOwner, id: string): Promise<RefundOutcome> {
  const refund = await ownRefund(deps, owner, id);
  const audit = auditOf(deps, owner, "refund.cancel", `${refund.id} on transaction ${refund.transactionId}`);
  const canceled = await changePending(deps, refund, { state: "canceled", canceledAt: deps.clock.now() }, "refund.canceled", audit);
  return { merchantId: owner.merchantId, refund: refundView(canceled) };
}

/** A transaction hash as chains write them: 64 hex digits, with 0x on EVM chains. */
const TX_HASH = /^(?:0x)?[0-9a-fA-F]{64}$/;

export const MarkPaidBody = z.object({
  tx_hash: z
    .string({ error: "tx_hash is required" })
    .trim()
    .regex(TX_HASH, "tx_hash must be a transaction hash: 64 hexadecimal digits (0x first on EVM chains)"),
});

/**
 * POST /v1/refunds/:id/mark_paid, and the dashboard's (manage_refunds): the merchant says it paid with
 * `tx_hash`. The refund stays pending, marked `merchant` with verification pending, until the chain
 * side sees that transaction reach the destination (refundSucceeded) or finds it does not
 * (refundVerificationFailed).
 */
export async function markRefundPaid(deps: RefundDeps, owner: RefundOwner, id: string, body: unknown): Promise<RefundOutcome> {
  const parsed = parseBody(MarkPaidBody, body);
  if (!parsed.ok) throw errors.refundValidation(parsed.errors);
  const refund = await ownRefund(deps, owner, id);
  if (refund.state === "pending" && refund.destination === null) {
    throw errors.refundValidation([
      { field: "tx_hash", message: "the refund has no destination yet: the customer has not claimed it, so no payment can be checked" },
    ]);
  }
  const hash = parsed.value.tx_hash.toLowerCase();
  // Checked here for the message; the unique index decides when the chain side closes the refund.
  if (refund.state === "pending" && (await deps.stores.refunds.closingTxHashes(refund.isLive, [hash])).has(hash)) {
    throw errors.refundTxHashTaken(hash);
  }
  const audit = auditOf(deps, owner, "refund.mark_paid", `${refund.id} with ${hash}`);
  const marked = await changePending(deps, refund, { txHash: hash, paidBy: "merchant", verification: "pending" }, null, audit);
  return { merchantId: owner.merchantId, refund: await shown(deps, marked) };
}

/**
 * For the chain side (issue 26): the refund's transaction reached its destination. `paidBy` `watcher`
 * when the watcher found it, `merchant` when it verified a merchant's tx_hash. Null when not pending;
 * `tx_taken` when that transaction already closed another refund of the mode (issue 42): one chain
 * transaction closes one refund, and this one stays pending.
 */
export async function refundSucceeded(
  deps: Pick<RefundDeps, "stores" | "clock">,
  id: string,
  txHash: string,
  paidBy: "watcher" | "merchant",
): Promise<RefundRecord | "tx_taken" | null> {
  const change: RefundChange = {
    state: "succeeded",
    succeededAt: deps.clock.now(),
    txHash,
    paidBy,
    verification: paidBy === "merchant" ? "verified" : null,
  };
  try {
    return await deps.stores.refunds.change(id, "pending", change, (record) => refundEvent("refund.succeeded", record));
  } catch (error) {
    // The refunds' unique index on succeeded tx hashes: another refund (another instance's, or just now) took it.
    if (error instanceof DuplicateKeyError) return "tx_taken";
    throw error;
  }
}

/** For the chain side: of these tx hashes (lower case), those that closed a refund of the mode; none closes a second. */
export function refundTxHashesTaken(deps: Pick<RefundDeps, "stores">, isLive: boolean, hashes: readonly string[]): Promise<Set<string>> {
  return deps.stores.refunds.closingTxHashes(isLive, hashes);
}

/** For the chain side: a merchant's tx_hash does not pay the refund; it stays pending for another. */
export function refundVerificationFailed(deps: Pick<RefundDeps, "stores">, id: string): Promise<RefundRecord | null> {
  return deps.stores.refunds.change(id, "pending", { verification: "failed" }, null);
}

// ── The claim link (GET/POST /refund/:token) ──

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
