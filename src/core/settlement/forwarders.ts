// Deposit forwarders as use cases (issue 40; docs/settlement.md, Deposit forwarders): the merchant's
// setting per EVM network and mode, and flushes: one factory transaction, signed by the operator's
// fee payer, that creates and empties the forwarders of settled payments. A flush is recorded with
// its signed transaction before it is sent, so a retry sends that same transaction (one nonce: it is
// mined once at most) and reads the chain's receipt rather than guessing.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { auditEntry, type AuditAction } from "../access/audit-log.ts";
import type { CoreDeps } from "../deps.ts";
import { DuplicateKeyError, errors, type PaygateError } from "../errors.ts";
import { LIST_LIMIT_DEFAULT, limitParam, pageOf, parseListQuery, single, startingAfter } from "../lists.ts";
import { Decimal } from "../money/amounts.ts";
import type { CryptoCurrency } from "../money/currencies.ts";
import { CHAINS, coinsOn, EVM_NETWORK_SLUGS, type EvmNetworkSlug, isNetworkSlug, networkName, type NetworkSlug } from "../networks.ts";
import type { ForwarderRails } from "../ports.ts";
import type { FlushRecord } from "../records/forwarders.ts";
import type { AuditWrite } from "../stores/audit-log.ts";
import { parseBody } from "../transactions/requests.ts";
import type { SettlementOwner } from "./consolidations.ts";
import { flushEvent, flushReorganizedEvent } from "./events.ts";
import { type FlushView, flushView, type ForwarderSettingView, forwarderSettingView } from "./forwarder-view.ts";

export type ForwarderDeps = Pick<CoreDeps, "stores" | "rails" | "clock" | "forwarderRails">;

/** Forwarders one flush takes at most: about 5.4 million gas at 100 (docs/benchmarks.md), well under a block. */
export const MAX_FLUSH_DEPOSITS = 100;
/** How long an on-demand flush waits for its receipt before answering `sending` (the flush job finishes it). */
const RECEIPT_WAIT_MS = 5_000;
const RECEIPT_POLL_MS = 200;

export const FLUSH_ID = /^fl_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The networks that take forwarders: every EVM network (core/networks.ts). The configuration
 * (src/rails/evm/config.ts) has a factory and a fee payer per mode for each, named after its row.
 */
export const FORWARDER_NETWORKS: readonly EvmNetworkSlug[] = EVM_NETWORK_SLUGS;
const evmNetworksText = FORWARDER_NETWORKS.join(", ");

const SettingBody = z.object({
  destination: z.string({ error: "destination is required: the merchant's settlement address" }).trim().min(1, "destination is required"),
});
const FlushBody = z.object({ network: z.string({ error: `network is required: one of ${evmNetworksText}` }).trim() });

function auditOf(deps: ForwarderDeps, owner: SettlementOwner, action: AuditAction, target: string): AuditWrite | null {
  return owner.by === null ? null : auditEntry(owner.by, owner.merchantId, deps.clock.now(), action, target);
}

function railsOf(deps: ForwarderDeps, network: NetworkSlug, isLive: boolean): ForwarderRails {
  if (deps.forwarderRails === undefined) throw errors.forwardersNotConfigured(networkName(network, isLive), "the EVM forwarder rails");
  return deps.forwarderRails;
}

function evmNetwork(raw: string, refuse: (problems: { field: string; message: string }[]) => PaygateError): NetworkSlug {
  const network = raw.trim().toLowerCase();
  if (!isNetworkSlug(network) || CHAINS[network].family !== "evm")
    throw refuse([{ field: "network", message: `network must be one of ${evmNetworksText} (got '${raw}')` }]);
  return network;
}

const modeText = (isLive: boolean) => (isLive ? "live mode" : "test mode");

function factoryOf(rails: ForwarderRails, network: NetworkSlug, isLive: boolean): string {
  const factory = rails.factory(network, isLive);
  if (!factory.ok) throw errors.forwardersNotConfigured(`${networkName(network, isLive)} (${modeText(isLive)})`, factory.variable);
  return factory.factory;
}

/** GET /v1/settlements/forwarders: the merchant's settings in the key's mode. */
export async function forwarderSettings(deps: ForwarderDeps, owner: SettlementOwner): Promise<ForwarderSettingView[]> {
  const settings = await deps.stores.forwarders.settings(owner.merchantId, owner.isLive);
  return settings.map((s) => {
    const factory = deps.forwarderRails?.factory(s.network, s.isLive);
    return forwarderSettingView(s, factory?.ok ? factory.factory : null);
  });
}

/**
 * PUT /v1/settlements/forwarders/{network}: new payments on that network go to forwarders whose only
 * destination is `destination`. Refused (nothing written) without a factory or fee payer, for an
 * address of no EVM network, and for one that does not take the coin.
 */
export async function setForwarderSetting(
  deps: ForwarderDeps,
  owner: SettlementOwner,
  rawNetwork: string,
  body: unknown,
): Promise<ForwarderSettingView> {
  const network = evmNetwork(rawNetwork, errors.forwarderValidation);
  const parsed = parseBody(SettingBody, body);
  if (!parsed.ok) throw errors.forwarderValidation(parsed.errors);
  const rails = railsOf(deps, network, owner.isLive);
  const factory = factoryOf(rails, network, owner.isLive);
  const payer = rails.feePayer(network, owner.isLive);
  // Without a fee payer, forwarders could be handed out but never flushed.
  if (!payer.ok) throw errors.forwardersNotConfigured(`${networkName(network, owner.isLive)} (${modeText(owner.isLive)})`, payer.variable);
  // A coin paid on the network: the address rules are the network's (the fee coin, such as Polygon's POL, may be no coin paygate takes).
  const coin = coinsOn(network)[0] as CryptoCurrency;
  const destination = parsed.value.destination;
  // Money sent to the zero address is lost: said plainly, before the address checks.
  if (/^0x0{40}$/i.test(destination))
    throw errors.forwarderValidation([{ field: "destination", message: "destination cannot be the zero address: money sent there is lost" }]);
  if (!deps.rails.isValidAddress(coin, owner.isLive, destination, network)) {
    const problem = deps.rails.addressProblem?.(coin, owner.isLive, destination, network) ?? null;
    throw errors.forwarderValidation([
      { field: "destination", message: `destination is not an address of ${networkName(network, owner.isLive)}${problem ? `: it ${problem}` : ""}` },
    ]);
  }
  const checked = await rails.checkDestination(network, owner.isLive, destination);
  if (!checked.ok) throw errors.forwarderValidation([{ field: "destination", message: `destination ${checked.problem}` }]);
  const saved = await deps.stores.forwarders.putSetting(
    { merchantId: owner.merchantId, network, isLive: owner.isLive, mode: "forwarder", destination: checked.address, updatedAt: deps.clock.now() },
    auditOf(deps, owner, "forwarder_setting.set", `${network} in ${modeText(owner.isLive)}: forwarders to ${checked.address}`),
  );
  return forwarderSettingView(saved, factory);
}

/** DELETE /v1/settlements/forwarders/{network}: new payments go to the key's own addresses again. */
export async function removeForwarderSetting(deps: ForwarderDeps, owner: SettlementOwner, rawNetwork: string): Promise<void> {
  const network = evmNetwork(rawNetwork, errors.forwarderValidation);
  const removed = await deps.stores.forwarders.removeSetting(
    owner.merchantId,
    network,
    owner.isLive,
    auditOf(deps, owner, "forwarder_setting.remove", `${network} in ${modeText(owner.isLive)}`),
  );
  if (!removed) throw errors.forwarderSettingNotFound(network);
}

/** POST /v1/settlements/flushes: flushes the merchant's settled forwarders on that network now. */
export async function flushForwarders(deps: ForwarderDeps, owner: SettlementOwner, body: unknown): Promise<FlushView> {
  const parsed = parseBody(FlushBody, body);
  if (!parsed.ok) throw errors.flushValidation(parsed.errors);
  const network = evmNetwork(parsed.value.network, errors.flushValidation);
  return flushView(await flushNetwork(deps, owner, network, RECEIPT_WAIT_MS));
}

/** One flush of up to MAX_FLUSH_DEPOSITS settled forwarders: recorded, sent, and read back for `waitMs` at most. */
export async function flushNetwork(deps: ForwarderDeps, owner: SettlementOwner, network: NetworkSlug, waitMs: number): Promise<FlushRecord> {
  const rails = railsOf(deps, network, owner.isLive);
  const factory = factoryOf(rails, network, owner.isLive);
  const payer = rails.feePayer(network, owner.isLive);
  if (!payer.ok) throw errors.forwardersNotConfigured(`${networkName(network, owner.isLive)} (${modeText(owner.isLive)})`, payer.variable);
  const found = await deps.stores.forwarders.flushable(owner.merchantId, owner.isLive, network, MAX_FLUSH_DEPOSITS);
  // A forwarder of another factory (the operator changed it) cannot be flushed through this one.
  const deposits = found.filter((d) => d.factory.toLowerCase() === factory.toLowerCase());
  if (deposits.length === 0) throw errors.nothingToFlush(`${networkName(network, owner.isLive)} ${modeText(owner.isLive)}`);
  const prepared = await rails.prepareFlush({ network, isLive: owner.isLive, factory, deposits });
  const id = `fl_${randomUUID()}`;
  let flush: FlushRecord;
  try {
    flush = await deps.stores.forwarders.createFlush(
      {
        id,
        merchantId: owner.merchantId,
        isLive: owner.isLive,
        network,
        factory,
        feePayer: prepared.feePayer,
        nonce: prepared.nonce,
        txHash: prepared.txHash,
        rawTx: prepared.rawTx,
        createdAt: deps.clock.now(),
        items: deposits.map((d) => ({ transactionId: d.transactionId, forwarder: d.address, moved: null })),
      },
      auditOf(deps, owner, "flush.create", `${id}: ${deposits.length} forwarders on ${network}, ${prepared.txHash}`),
    );
  } catch (error) {
    if (error instanceof DuplicateKeyError) throw errors.flushForwardersTaken();
    throw error;
  }
  try {
    await rails.broadcast(network, owner.isLive, flush.rawTx);
  } catch {
    // Recorded: the flush job sends the same transaction again and reads its receipt.
    return flush;
  }
  const until = Date.now() + waitMs;
  for (;;) {
    const advanced = await advanceFlush(deps, flush);
    if (advanced.state !== "sending" || Date.now() >= until) return advanced;
    await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
  }
}

/**
 * Reads a sending flush's fate from the chain: mined (confirmed with what moved, or failed), replaced
 * by another transaction of its nonce (failed: its forwarders are offered again), or still pending.
 */
export async function advanceFlush(deps: ForwarderDeps, flush: FlushRecord): Promise<FlushRecord> {
  if (flush.state !== "sending" || !isNetworkSlug(flush.network)) return flush;
  const rails = railsOf(deps, flush.network, flush.isLive);
  const deposits = (await deps.stores.forwarders.depositsOf(flush.items.map((i) => i.transactionId))).map((d) => ({
    transactionId: d.transactionId,
    destination: d.destination,
    salt: d.salt,
  }));
  const status = await rails.flushStatus({ ...flush, network: flush.network, deposits });
  if (status.kind === "pending") return flush;
  const result =
    status.kind === "replaced"
      ? { state: "failed" as const, gasUsed: null, fee: null, block: null, moved: new Map() }
      : {
          state: status.succeeded ? ("confirmed" as const) : ("failed" as const),
          gasUsed: status.gasUsed,
          fee: new Decimal(status.fee),
          block: { number: status.blockNumber, hash: status.blockHash },
          moved: status.moved,
        };
  const now = deps.clock.now();
  const finished = await deps.stores.forwarders.finishFlush(flush.id, result, now, (f) => flushEvent(f, now));
  // Another pass (the job, another instance) finished it first: its record, not this stale one.
  return finished ?? (await deps.stores.forwarders.findFlush(flush.id, flush.merchantId, flush.isLive)) ?? flush;
}

/** The flush job's retry of a flush still sending: its same signed transaction again, then its receipt. */
export async function resumeFlush(deps: ForwarderDeps, flush: FlushRecord): Promise<FlushRecord> {
  const advanced = await advanceFlush(deps, flush);
  if (advanced.state !== "sending" || !isNetworkSlug(flush.network)) return advanced;
  await railsOf(deps, flush.network, flush.isLive).broadcast(flush.network, flush.isLive, flush.rawTx);
  return advanceFlush(deps, flush);
}

/**
 * The flush job's second look at a confirmed flush younger than the network's finality depth: still in
 * its block (final: not read again), mined again in another block (the block is updated), or gone with
 * its block: back to sending (settlement.flush.reorganized; its ledger entries go with its confirmation)
 * and its same signed transaction sent again, so it is confirmed again once mined (one nonce: once at most).
 */
export async function recheckFlush(deps: ForwarderDeps, flush: FlushRecord): Promise<FlushRecord> {
  if (flush.state !== "confirmed" || flush.blockNumber === null || flush.blockHash === null || !isNetworkSlug(flush.network)) return flush;
  const rails = railsOf(deps, flush.network, flush.isLive);
  const block = { network: flush.network, isLive: flush.isLive, txHash: flush.txHash, blockNumber: flush.blockNumber, blockHash: flush.blockHash };
  const status = await rails.flushBlock(block);
  const now = deps.clock.now();
  if (status.kind === "moved") await deps.stores.forwarders.flushBlockMoved(flush.id, { number: status.blockNumber, hash: status.blockHash });
  if (status.kind !== "dropped") {
    if (status.final) await deps.stores.forwarders.flushFinal(flush.id, now);
    return flush;
  }
  const reorganized = await deps.stores.forwarders.reorganizeFlush(flush.id, flush.blockHash, (f) => flushReorganizedEvent(f, now));
  if (reorganized === null) return flush;
  await rails.broadcast(flush.network, flush.isLive, reorganized.rawTx);
  return reorganized;
}

async function ownFlush(deps: ForwarderDeps, owner: SettlementOwner, id: string): Promise<FlushRecord> {
  const found = FLUSH_ID.test(id) ? await deps.stores.forwarders.findFlush(id, owner.merchantId, owner.isLive) : null;
  if (!found) throw errors.flushNotFound(id);
  return found;
}

export async function retrieveFlush(deps: ForwarderDeps, owner: SettlementOwner, id: string): Promise<FlushView> {
  return flushView(await ownFlush(deps, owner, id));
}

export const FlushListParams = z.object({
  limit: limitParam.optional(),
  starting_after: single.regex(FLUSH_ID, "must be the id (fl_…) of a flush of the previous page").optional(),
});

/** GET /v1/settlements/flushes: newest first, with the cursor of the other lists. */
export async function listFlushes(
  deps: ForwarderDeps,
  owner: SettlementOwner,
  params: Record<string, unknown>,
): Promise<{ flushes: FlushView[]; hasMore: boolean }> {
  const query = parseListQuery(FlushListParams, params);
  const cursor = await startingAfter(query.starting_after, (id) => deps.stores.forwarders.findFlush(id, owner.merchantId, owner.isLive));
  const limit = query.limit ?? LIST_LIMIT_DEFAULT;
  const rows = await deps.stores.forwarders.flushPage({
    merchantId: owner.merchantId,
    isLive: owner.isLive,
    after: cursor && { createdAt: cursor.createdAt, id: cursor.id },
    limit: limit + 1,
  });
  const page = pageOf(rows, limit);
  return { flushes: page.items.map(flushView), hasMore: page.hasMore };
}
