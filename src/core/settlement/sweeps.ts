// Recording sweeps (issue 40; docs/settlement.md, Recording sweeps): the merchant posts the hashes of
// the sweeps it sent from its payment addresses (what `tools/sweep --report` prints); each is read from
// the network's node (mined and successful, sent from an address of one of the merchant's payments in
// the key's mode, what it moved to where, its fee) with the fee wallet's top-up that paid its gas, and
// recorded once, with a settlement.sweep.recorded event. A ledger entry of kind sweep.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { errors, isDatabaseOutage, PaygateError } from "../errors.ts";
import { subjectOutboxEvent } from "../events/outbox-event.ts";
import { LIST_LIMIT_DEFAULT, limitParam, pageOf, parseListQuery, single, startingAfter } from "../lists.ts";
import { Decimal } from "../money/amounts.ts";
import { CRYPTO_CURRENCIES } from "../money/currencies.ts";
import { CHAINS, defaultNetworkOf, EVM_NETWORK_SLUGS, isEvmNetwork, isNetworkSlug, networkName, type NetworkSlug } from "../networks.ts";
import type { SweepChainTransaction } from "../ports.ts";
import type { SweepRecord } from "../records/sweeps.ts";
import { parseBody } from "../transactions/requests.ts";
import type { SettlementOwner } from "./consolidations.ts";
import { type SweepView, sweepView } from "./sweep-record-view.ts";
import { sameAddressOn, unitsText } from "./sweep-view.ts";

export type SweepRecordDeps = Pick<CoreDeps, "stores" | "clock" | "sweepRails">;

export const SWEEP_ID = /^sw_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Sweeps one request records at most (a run of the tool over one plan: 200 addresses, a transfer and coin left over each). */
export const SWEEPS_PER_REQUEST = 400;

const hash = z
  .string({ error: "must be a transaction hash" })
  .trim()
  .regex(/^(0x)?[0-9a-fA-F]{64}$/, "must be a transaction hash: 64 hexadecimal digits")
  .transform((h) => `0x${h.replace(/^0x/, "").toLowerCase()}`);
const SweepItem = z.object({ tx_hash: hash, top_up_tx_hash: hash.nullable().optional() });

export const SweepRecordBody = z
  .object({
    network: z.string({ error: "network is required: the network the sweeps were sent on (an EVM network or tron)" }).trim().toLowerCase(),
    tx_hash: hash.optional(),
    top_up_tx_hash: hash.nullable().optional(),
    sweeps: z
      .array(SweepItem, { error: "sweeps must be a list of {tx_hash, top_up_tx_hash}" })
      .min(1, "sweeps must hold at least one sweep")
      .max(SWEEPS_PER_REQUEST, `sweeps holds at most ${SWEEPS_PER_REQUEST} sweeps`)
      .optional(),
  })
  .superRefine((body, ctx) => {
    if ((body.tx_hash === undefined) === (body.sweeps === undefined))
      ctx.addIssue({
        code: "custom",
        path: ["tx_hash"],
        message: "give either tx_hash (one sweep) or sweeps (what tools/sweep --report prints), not both",
      });
    if (body.sweeps !== undefined && body.top_up_tx_hash != null)
      ctx.addIssue({ code: "custom", path: ["top_up_tx_hash"], message: "with sweeps, give each sweep's top_up_tx_hash inside it" });
  });

export const SweepListParams = z.object({
  limit: limitParam.optional(),
  network: single.optional().meta({ description: "Only this network's sweeps (an EVM network or tron)." }),
  starting_after: single.regex(SWEEP_ID, "must be the id (sw_…) of a sweep of the previous page").optional(),
});

export interface SweepRecordOutcome {
  merchantId: number;
  sweeps: SweepView[];
  /** How many were recorded by this request, and how many had been before (the same ones given back). */
  recorded: number;
  alreadyRecorded: number;
}

const refuse = (field: string, message: string) => errors.sweepRecordValidation([{ field, message }]);

/** The account networks a sweep is sent on: each EVM network and TRON. */
const SWEEP_NETWORKS: readonly NetworkSlug[] = [...EVM_NETWORK_SLUGS, "tron"];
const isSweepNetwork = (raw: string): raw is NetworkSlug => isNetworkSlug(raw) && (isEvmNetwork(raw) || raw === "tron");

function networkOf(raw: string): NetworkSlug {
  if (!isSweepNetwork(raw)) throw refuse("network", `network must be one of ${SWEEP_NETWORKS.join(", ")} (got '${raw}')`);
  return raw;
}

/** A hash as the network writes it: 0x-prefixed on EVM networks, 64 bare hex digits on TRON (as TronScan and the tool do). */
const txIdOn = (network: NetworkSlug, hash: string) => (network === "tron" ? hash.replace(/^0x/, "") : hash);
const sameAddress = (network: NetworkSlug, a: string, b: string) => sameAddressOn(CHAINS[network].family, a, b);

/** POST /v1/settlements/sweeps: each sweep read from the node and recorded once; one already recorded is given back as it is. */
export async function recordSweeps(deps: SweepRecordDeps, owner: SettlementOwner, body: unknown): Promise<SweepRecordOutcome> {
  const parsed = parseBody(SweepRecordBody, body);
  if (!parsed.ok) throw errors.sweepRecordValidation(parsed.errors);
  const network = networkOf(parsed.value.network);
  const asked = parsed.value.sweeps ?? [{ tx_hash: parsed.value.tx_hash as string, top_up_tx_hash: parsed.value.top_up_tx_hash }];
  const items = [
    ...new Map(
      asked.map((s) => {
        const txHash = txIdOn(network, s.tx_hash);
        return [txHash, { txHash, topUp: s.top_up_tx_hash == null ? null : txIdOn(network, s.top_up_tx_hash) }];
      }),
    ).values(),
  ];
  const hashes = new Set(items.map((i) => i.txHash));
  for (const i of items) {
    if (i.topUp === i.txHash) throw refuse("top_up_tx_hash", `${i.topUp} cannot be its own top-up`);
    if (i.topUp !== null && hashes.has(i.topUp)) throw refuse("top_up_tx_hash", `${i.topUp} is given as a sweep and as a top-up`);
  }
  const known = await deps.stores.sweeps.findByHashes(network, owner.isLive, [...hashes, ...items.flatMap((i) => (i.topUp ? [i.topUp] : []))]);
  const mode = owner.isLive ? "live" : "test";
  const fresh: SweepRecord[] = [];
  for (const item of items) {
    const recorded = known.find((k) => k.txHash === item.txHash);
    if (recorded !== undefined) {
      if (recorded.merchantId !== owner.merchantId) throw errors.sweepNotFromPaymentAddress(item.txHash, recorded.fromAddress, mode);
      continue;
    }
    if (known.some((k) => k.topUpTxHash === item.txHash))
      throw errors.sweepTransactionInvalid(item.txHash, "is recorded as the top-up of another sweep, not a sweep");
    const taken = item.topUp === null ? undefined : known.find((k) => k.topUpTxHash === item.topUp);
    if (taken !== undefined) throw errors.sweepTransactionInvalid(item.topUp as string, `is already the top-up of the sweep ${taken.txHash}`);
    fresh.push(await readSweep(deps, owner, network, item.txHash, item.topUp));
  }
  const created = fresh.length === 0 ? [] : await deps.stores.sweeps.record(fresh, (s) => sweepEvent(s, deps.clock.now()));
  // A sweep another request recorded meanwhile is given back as that request recorded it.
  const now = created.length === fresh.length ? [...known, ...created] : await deps.stores.sweeps.findByHashes(network, owner.isLive, [...hashes]);
  const sweeps = items.flatMap((i) => now.filter((s) => s.txHash === i.txHash && s.merchantId === owner.merchantId).map(sweepView));
  // Skipped at insert without being recorded under its hash: its top-up went with another sweep meanwhile.
  const lost = items.find((i) => !sweeps.some((s) => s.tx_hash === i.txHash));
  if (lost !== undefined) throw errors.sweepTopUpTaken(lost.topUp ?? lost.txHash);
  return { merchantId: owner.merchantId, sweeps, recorded: created.length, alreadyRecorded: sweeps.length - created.length };
}

function sweepEvent(sweep: SweepRecord, now: Date) {
  return subjectOutboxEvent(sweep, { type: "settlement.sweep.recorded", body: { sweep: sweepView(sweep) } }, now);
}

async function chainTransaction(deps: SweepRecordDeps, owner: SettlementOwner, network: NetworkSlug, txHash: string) {
  const node = `The ${networkName(network, owner.isLive)} node`;
  if (deps.sweepRails === undefined) throw errors.sweepTransactionNodeUnavailable(node, "no chain node is configured in this process");
  let tx: SweepChainTransaction;
  try {
    tx = await deps.sweepRails.transaction({ network, isLive: owner.isLive, txHash });
  } catch (error) {
    if (error instanceof PaygateError || isDatabaseOutage(error)) throw error;
    throw errors.sweepTransactionNodeUnavailable(node, error instanceof Error ? error.message : String(error));
  }
  if (tx.state === "unknown") throw errors.sweepTransactionNotFound(txHash, node);
  if (tx.state === "pending") throw errors.sweepTransactionNotFinal(txHash, "is not mined yet");
  if (!tx.succeeded) throw errors.sweepTransactionNotFinal(txHash, "reverted");
  return tx;
}

/** One sweep as the node tells it: what left the payment address (a configured token's Transfer, else the coin it sent) and the top-up that paid its gas. */
async function readSweep(
  deps: SweepRecordDeps,
  owner: SettlementOwner,
  network: NetworkSlug,
  txHash: string,
  topUpHash: string | null,
): Promise<SweepRecord> {
  const tx = await chainTransaction(deps, owner, network, txHash);
  const defaultCoinIds = CRYPTO_CURRENCIES.filter((c) => defaultNetworkOf(c.slug) === network).map((c) => c.id);
  const payment = await deps.stores.sweeps.paymentAt({
    merchantId: owner.merchantId,
    isLive: owner.isLive,
    network,
    defaultCoinIds,
    address: tx.from,
  });
  // The store matches addresses without case (EVM checksums); TRON's base58 must match exactly.
  if (payment === null || !sameAddress(network, payment.address, tx.from))
    throw errors.sweepNotFromPaymentAddress(txHash, tx.from, owner.isLive ? "live" : "test");
  const feeCoin = CHAINS[network].feeCoin;
  const out = tx.transfers.filter((t) => sameAddress(network, t.from, tx.from) && t.units > 0n);
  const coins = [...new Set(out.map((t) => t.coin))];
  let moved: { coin: string; amount: Decimal; destination: string };
  if (coins.length > 1) throw errors.sweepTransactionInvalid(txHash, `moves several tokens (${coins.join(", ")}): a sweep moves one coin`);
  const first = out[0];
  if (first !== undefined) {
    const units = out.reduce((sum, t) => sum + t.units, 0n);
    moved = { coin: first.coin, amount: new Decimal(unitsText(units, first.decimals)), destination: first.to };
  } else if (tx.plain && tx.value > 0n && tx.to !== null) {
    moved = { coin: feeCoin, amount: new Decimal(unitsText(tx.value, tx.feeDecimals)), destination: tx.to };
  } else {
    throw errors.sweepTransactionInvalid(txHash, `moves neither ${feeCoin} nor a token paygate takes on ${network} off ${tx.from}`);
  }
  const topUp = topUpHash === null ? null : await readTopUp(deps, owner, network, topUpHash, tx.from);
  return {
    id: `sw_${randomUUID()}`,
    merchantId: owner.merchantId,
    isLive: owner.isLive,
    network,
    txHash,
    fromAddress: tx.from,
    transactionId: payment.transactionId,
    destination: moved.destination,
    coin: moved.coin,
    amount: moved.amount,
    fee: new Decimal(unitsText(tx.fee, tx.feeDecimals)),
    blockNumber: tx.blockNumber,
    blockHash: tx.blockHash,
    minedAt: tx.minedAt,
    topUpTxHash: topUp?.txHash ?? null,
    topUpFrom: topUp?.from ?? null,
    topUpAmount: topUp?.amount ?? null,
    topUpFee: topUp?.fee ?? null,
    createdAt: deps.clock.now(),
  };
}

/** The fee wallet's top-up: a plain transfer of the network's coin to the swept payment address. */
async function readTopUp(deps: SweepRecordDeps, owner: SettlementOwner, network: NetworkSlug, txHash: string, address: string) {
  const tx = await chainTransaction(deps, owner, network, txHash);
  if (!tx.plain || tx.value === 0n || tx.to === null || !sameAddress(network, tx.to, address))
    throw errors.sweepTransactionInvalid(
      txHash,
      `is no top-up of ${address}: a top-up sends ${CHAINS[network].feeCoin} to the swept address, with no call`,
    );
  return { txHash, from: tx.from, amount: new Decimal(unitsText(tx.value, tx.feeDecimals)), fee: new Decimal(unitsText(tx.fee, tx.feeDecimals)) };
}

/** GET /v1/settlements/sweeps: newest recorded first. */
export async function listSweeps(deps: SweepRecordDeps, owner: SettlementOwner, params: Record<string, unknown>) {
  const query = parseListQuery(SweepListParams, params);
  const network = query.network === undefined ? null : query.network.trim().toLowerCase();
  if (network !== null && !isSweepNetwork(network))
    throw errors.invalidListParameters([{ field: "network", message: `must be one of ${SWEEP_NETWORKS.join(", ")}` }]);
  const cursor = await startingAfter(query.starting_after, (id) => deps.stores.sweeps.findFor(id, owner.merchantId, owner.isLive));
  const limit = query.limit ?? LIST_LIMIT_DEFAULT;
  const rows = await deps.stores.sweeps.page({
    merchantId: owner.merchantId,
    isLive: owner.isLive,
    network,
    after: cursor && { createdAt: cursor.createdAt, id: cursor.id },
    limit: limit + 1,
  });
  const page = pageOf(rows, limit);
  return { merchantId: owner.merchantId, sweeps: page.items.map(sweepView), hasMore: page.hasMore };
}

export async function retrieveSweep(deps: SweepRecordDeps, owner: SettlementOwner, id: string): Promise<SweepView> {
  const found = SWEEP_ID.test(id) ? await deps.stores.sweeps.findFor(id, owner.merchantId, owner.isLive) : null;
  if (found === null) throw errors.sweepNotFound(id);
  return sweepView(found);
}
