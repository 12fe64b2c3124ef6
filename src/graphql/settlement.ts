// Settlement in the graph (issue 40; docs/settlement.md, docs/ledger.md), read only, secret key only:
// forwarder settings and flushes, consolidations, recorded sweeps and the ledger's totals, as REST's
// objects in the graph's names; the rules, refusals and messages are the core's (src/core/settlement).
import type { MerchantAccess } from "../core/facades/access.ts";
import { PaygateError } from "../core/errors.ts";
import type { LedgerTotalsView } from "../core/ledger/view.ts";
import type { FlushView, ForwarderSettingView } from "../core/settlement/forwarder-view.ts";
import type { SweepView } from "../core/settlement/sweep-record-view.ts";
import type { ConsolidationView } from "../core/settlement/view.ts";
import type { GraphQLContext } from "./context.ts";
import { fromCore } from "./errors.ts";
import type {
  Consolidation,
  ConsolidationState,
  Flush,
  FlushState,
  ForwarderSetting,
  LedgerTotals,
  QueryResolvers,
  Sweep,
} from "./generated/resolvers.ts";

type Access = (ctx: GraphQLContext) => Promise<MerchantAccess>;

export const forwarderSettingOf = (s: ForwarderSettingView): ForwarderSetting => ({
  network: s.network,
  isLive: s.is_live,
  destination: s.destination,
  factory: s.factory,
  updatedAt: s.updated_at,
});

export const flushOf = (f: FlushView): Flush => ({
  id: f.id,
  isLive: f.is_live,
  network: f.network,
  state: f.state.toUpperCase() as FlushState,
  txHash: f.tx_hash,
  feePayer: f.fee_payer,
  gasUsed: f.gas_used,
  fee: f.fee,
  payments: f.payments.map((p) => ({ transactionId: p.transaction_id, forwarder: p.forwarder, moved: p.moved })),
  createdAt: f.created_at,
  confirmedAt: f.confirmed_at,
  blockNumber: f.block_number,
  blockHash: f.block_hash,
  reorganizations: f.reorganizations,
});

export const consolidationOf = (c: ConsolidationView): Consolidation => ({
  id: c.id,
  isLive: c.is_live,
  state: c.state.toUpperCase() as ConsolidationState,
  coin: c.coin,
  network: c.network,
  destination: c.destination,
  feeRate: c.fee_rate,
  total: c.total,
  networkFee: c.network_fee,
  amountToReceive: c.amount_to_receive,
  inputs: c.inputs.map((i) => ({ transactionId: i.transaction_id, outpoint: i.outpoint, amount: i.amount })),
  psbt: c.psbt,
  txHash: c.tx_hash,
  createdAt: c.created_at,
  seenAt: c.seen_at,
  confirmedAt: c.confirmed_at,
  canceledAt: c.canceled_at,
});

export const sweepOf = (s: SweepView): Sweep => ({
  id: s.id,
  isLive: s.is_live,
  network: s.network,
  txHash: s.tx_hash,
  fromAddress: s.from_address,
  transactionId: s.transaction_id,
  destination: s.destination,
  coin: s.coin,
  amount: s.amount,
  fee: s.fee,
  feeCoin: s.fee_coin,
  blockNumber: s.block_number,
  blockHash: s.block_hash,
  minedAt: s.mined_at,
  topUp: s.top_up === null ? null : { txHash: s.top_up.tx_hash, from: s.top_up.from, amount: s.top_up.amount, fee: s.top_up.fee },
  createdAt: s.created_at,
});

export const ledgerTotalsOf = (t: LedgerTotalsView): LedgerTotals => ({
  coin: t.coin,
  network: t.network,
  receipts: t.receipts,
  received: t.received,
  refunds: t.refunds,
  refunded: t.refunded,
  refundFees: t.refund_fees,
  consolidations: t.consolidations,
  consolidated: t.consolidated,
  consolidationFees: t.consolidation_fees,
  flushes: t.flushes,
  flushed: t.flushed,
  sweeps: t.sweeps,
  swept: t.swept,
  sweepFees: t.sweep_fees,
  ownSweepFees: t.own_sweep_fees,
  net: t.net,
});

/** Only the arguments given, as REST's query parameters (strings). */
const params = (entries: Record<string, string | number | null | undefined>) =>
  Object.fromEntries(Object.entries(entries).flatMap(([key, value]) => (value === null || value === undefined ? [] : [[key, String(value)]])));

/** As refund(id): another merchant's, mode's or an unknown object is null. */
async function orNull<T>(reason: string, read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof PaygateError && error.reason === reason) return null;
    throw error;
  }
}

type SettlementQueries = "forwarderSettings" | "flushes" | "flush" | "consolidations" | "consolidation" | "sweeps" | "sweep" | "ledgerTotals";

export function settlementQueries(access: Access): Pick<QueryResolvers<GraphQLContext>, SettlementQueries> {
  return {
    forwarderSettings: (_root, _args, ctx) =>
      fromCore(async () => (await ctx.gateway.settlement.forwarderSettings(await access(ctx))).map(forwarderSettingOf)),
    flushes: (_root, { first, after }, ctx) =>
      fromCore(async () => {
        const page = await ctx.gateway.settlement.listFlushes(await access(ctx), params({ limit: first, starting_after: after }));
        return page.flushes.map(flushOf);
      }),
    flush: (_root, { id }, ctx) =>
      fromCore(async () => orNull("flush_not_found", async () => flushOf(await ctx.gateway.settlement.retrieveFlush(await access(ctx), id)))),
    consolidations: (_root, { first, after }, ctx) =>
      fromCore(async () => {
        const page = await ctx.gateway.settlement.listConsolidations(await access(ctx), params({ limit: first, starting_after: after }));
        return page.consolidations.map(consolidationOf);
      }),
    consolidation: (_root, { id }, ctx) =>
      fromCore(async () =>
        orNull("consolidation_not_found", async () =>
          consolidationOf((await ctx.gateway.settlement.retrieveConsolidation(await access(ctx), id)).consolidation),
        ),
      ),
    sweeps: (_root, { network, first, after }, ctx) =>
      fromCore(async () => {
        const page = await ctx.gateway.settlement.listSweeps(await access(ctx), params({ network, limit: first, starting_after: after }));
        return page.sweeps.map(sweepOf);
      }),
    sweep: (_root, { id }, ctx) =>
      fromCore(async () => orNull("sweep_not_found", async () => sweepOf(await ctx.gateway.settlement.retrieveSweep(await access(ctx), id)))),
    ledgerTotals: (_root, { from, to, coin, network, kind }, ctx) =>
      fromCore(async () =>
        (await ctx.gateway.ledger.totals(await access(ctx), params({ from, to, coin, network, kind }))).totals.map(ledgerTotalsOf),
      ),
  };
}
