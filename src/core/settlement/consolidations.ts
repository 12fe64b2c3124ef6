// Consolidations as use cases (issue 40; docs/settlement.md): make one from the merchant's settled
// BTC or LTC outputs, read them, cancel an open one. Each runs on an owner the settlement façade made
// from a caller's MerchantAccess once its permission was checked.
import { z } from "zod";
import { auditEntry, type AuditAction, type ChangeAuthor } from "../access/audit-log.ts";
import type { CoreDeps } from "../deps.ts";
import { DuplicateKeyError, errors } from "../errors.ts";
import { LIST_LIMIT_DEFAULT, limitParam, pageOf, parseListQuery, single, startingAfter } from "../lists.ts";
import { Decimal } from "../money/amounts.ts";
import { defaultNetworkOf } from "../networks.ts";
import type { ConsolidationRecord } from "../records/settlement.ts";
import type { AuditWrite } from "../stores/audit-log.ts";
import { parseBody } from "../transactions/requests.ts";
import { ConsolidationBody, CONSOLIDATION_ID, isConsolidationId, newConsolidationId, targetOf } from "./rules.ts";
import { type ConsolidationView, consolidationView } from "./view.ts";
import { consolidationEvent } from "./events.ts";

export type SettlementDeps = Pick<CoreDeps, "stores" | "rails" | "clock" | "consolidationRails">;

/** Whose consolidations a call works on; a change's `by` goes to the audit log, a read's is null. */
export interface SettlementOwner {
  merchantId: number;
  isLive: boolean;
  by: ChangeAuthor | null;
}

export interface ConsolidationOutcome {
  merchantId: number;
  consolidation: ConsolidationView;
}

function auditOf(deps: SettlementDeps, owner: SettlementOwner, action: AuditAction, target: string): AuditWrite | null {
  return owner.by === null ? null : auditEntry(owner.by, owner.merchantId, deps.clock.now(), action, target);
}

/** POST /v1/settlements/consolidations: the PSBT of the merchant's settled outputs, to sign in its wallet. */
export async function createConsolidation(deps: SettlementDeps, owner: SettlementOwner, body: unknown): Promise<ConsolidationOutcome> {
  const parsed = parseBody(ConsolidationBody, body);
  if (!parsed.ok) throw errors.consolidationValidation(parsed.errors);
  const checked = targetOf(parsed.value, deps.rails, owner.isLive);
  if (!checked.ok) throw errors.consolidationValidation(checked.problems);
  const { crypto, network, feeRate } = checked.target;
  const what = `${crypto.slug} on ${network} in ${owner.isLive ? "live" : "test"} mode`;
  const outputs = await deps.stores.settlement.settledOutputs({
    merchantId: owner.merchantId,
    isLive: owner.isLive,
    coinId: crypto.id,
    network,
    isDefaultNetwork: network === defaultNetworkOf(crypto.slug),
    limit: parsed.value.max_inputs,
  });
  if (outputs.length === 0 || deps.consolidationRails === undefined) throw errors.nothingToConsolidate(what);
  const built = await deps.consolidationRails.build({
    coin: crypto.slug,
    network,
    isLive: owner.isLive,
    outputs: outputs.map((o) => ({ walletId: o.walletId, derivationIndex: o.derivationIndex, outpoint: o.outpoint, amount: o.amount.toFixed() })),
    destination: parsed.value.destination,
    feeRate,
  });
  if (!built.ok) {
    if (built.problem === "all_spent") throw errors.nothingToConsolidate(what);
    const coin = (amount: string) => `${amount} ${crypto.slug}`;
    throw errors.consolidationBelowDust(coin(built.total), coin(built.networkFee), coin(built.dust));
  }
  const spent = new Set(built.spent);
  const id = newConsolidationId();
  try {
    const created = await deps.stores.settlement.create(
      {
        id,
        merchantId: owner.merchantId,
        isLive: owner.isLive,
        coin: crypto.slug,
        network,
        state: "open",
        destination: parsed.value.destination,
        feeRate: new Decimal(feeRate),
        total: new Decimal(built.total),
        networkFee: new Decimal(built.networkFee),
        amountToReceive: new Decimal(built.amountToReceive),
        psbt: built.psbt,
        txHash: built.txHash,
        createdAt: deps.clock.now(),
        inputs: outputs.filter((o) => spent.has(o.outpoint)).map((o) => ({ transactionId: o.transactionId, outpoint: o.outpoint, amount: o.amount })),
      },
      auditOf(
        deps,
        owner,
        "consolidation.create",
        `${id} of ${built.spent.length} outputs, ${built.total} ${crypto.slug}, to ${parsed.value.destination}`,
      ),
    );
    return { merchantId: owner.merchantId, consolidation: consolidationView(created, built.keyOriginMissing) };
  } catch (error) {
    if (error instanceof DuplicateKeyError) throw errors.consolidationOutputsTaken();
    throw error;
  }
}

async function ownConsolidation(deps: SettlementDeps, owner: SettlementOwner, id: string): Promise<ConsolidationRecord> {
  const found = isConsolidationId(id) ? await deps.stores.settlement.findFor(id, owner.merchantId, owner.isLive) : null;
  if (!found) throw errors.consolidationNotFound(id);
  return found;
}

export async function retrieveConsolidation(deps: SettlementDeps, owner: SettlementOwner, id: string): Promise<ConsolidationOutcome> {
  return { merchantId: owner.merchantId, consolidation: consolidationView(await ownConsolidation(deps, owner, id)) };
}

/** An open consolidation canceled: its outputs are offered again. Once seen on the chain it cannot be. */
export async function cancelConsolidation(deps: SettlementDeps, owner: SettlementOwner, id: string): Promise<ConsolidationOutcome> {
  const found = await ownConsolidation(deps, owner, id);
  if (found.state !== "open") throw errors.consolidationNotOpen(found.state);
  const now = deps.clock.now();
  const moved = await deps.stores.settlement.move(id, "open", "canceled", now, auditOf(deps, owner, "consolidation.cancel", id), (c) =>
    consolidationEvent(c, now),
  );
  if (moved === null) throw errors.consolidationNotOpen((await ownConsolidation(deps, owner, id)).state);
  return { merchantId: owner.merchantId, consolidation: consolidationView(moved) };
}

export const ConsolidationListParams = z.object({
  limit: limitParam.optional(),
  starting_after: single.regex(CONSOLIDATION_ID, "must be the id (co_…) of a consolidation of the previous page").optional(),
});

/** GET /v1/settlements/consolidations: newest first, with the cursor of the other lists. */
export async function listConsolidations(
  deps: SettlementDeps,
  owner: SettlementOwner,
  params: Record<string, unknown>,
): Promise<{ merchantId: number; consolidations: ConsolidationView[]; hasMore: boolean }> {
  const query = parseListQuery(ConsolidationListParams, params);
  const cursor = await startingAfter(query.starting_after, (id) => deps.stores.settlement.findFor(id, owner.merchantId, owner.isLive));
  const after = cursor && { createdAt: cursor.createdAt, id: cursor.id };
  const limit = query.limit ?? LIST_LIMIT_DEFAULT;
  const rows = await deps.stores.settlement.page({ merchantId: owner.merchantId, isLive: owner.isLive, after, limit: limit + 1 });
  const page = pageOf(rows, limit);
  return { merchantId: owner.merchantId, consolidations: page.items.map((c) => consolidationView(c)), hasMore: page.hasMore };
}
