// `paygate settlement own-addresses …` and `… unmatched …` (issue 40; docs/settlement.md, Own addresses):
// a merchant's TRON own-address setting and its unmatched receipts, through the core as the REST API
// does; each command prints what it did.
import { operatorAccess } from "../core/facades/access.ts";
import type { UnmatchedReceiptView } from "../core/own-addresses/view.ts";
import { type CliContext, type MerchantOption, modeOption, print, requiredMerchant, say, UsageError, withRuntime } from "./commands.ts";

export interface OwnAddressOptions extends MerchantOption {
  mode?: string;
  network?: string;
  count?: string;
  transaction?: string;
  txHash?: string;
  state?: string;
  json?: boolean;
}

const ownerOf = (options: OwnAddressOptions) => operatorAccess(requiredMerchant(options), modeOption(options.mode, "test") === "live");
const modeText = (isLive: boolean) => (isLive ? "live" : "test");

const line = (r: UnmatchedReceiptView) =>
  `  ${r.id}  ${r.state}  ${r.amount} ${r.currency} to ${r.address}  tx ${r.tx_hash ?? "?"}${r.transaction_id ? `  → ${r.transaction_id}` : ""}${r.refund_tx_hash ? `  refunded in ${r.refund_tx_hash}` : ""}`;

export async function ownAddresses(ctx: CliContext, options: OwnAddressOptions): Promise<void> {
  const owner = ownerOf(options);
  const settings = await withRuntime(ctx, (rt) => rt.gateway.settlement.ownAddressSettings(owner));
  if (options.json) return print(ctx, { own_addresses: settings });
  if (settings.length === 0) return say(ctx, `Merchant ${owner.merchantId} settles no ${modeText(owner.isLive)}-mode network to its own addresses.`);
  for (const s of settings)
    say(ctx, `  ${s.network}  ${s.address_count} own address(es), up to ${s.max_extra_units} open payments each: ${s.addresses.join(", ")}`);
}

export async function ownAddressesSet(ctx: CliContext, options: OwnAddressOptions): Promise<void> {
  const owner = ownerOf(options);
  if (options.count === undefined) throw new UsageError("--count is required: how many own addresses, 1 to 10.");
  const count = Number(options.count);
  if (!/^\d{1,2}$/.test(options.count) || count < 1 || count > 10)
    throw new UsageError(`--count must be a whole number from 1 to 10; got '${options.count}'.`);
  const network = options.network ?? "tron";
  if (network !== "tron") throw new UsageError(`--network must be tron (own addresses are TRON's); got '${network}'.`);
  const setting = await withRuntime(ctx, (rt) => rt.gateway.settlement.setOwnAddressSetting(owner, network, { address_count: count }));
  if (options.json) return print(ctx, setting);
  say(
    ctx,
    `New ${setting.network} payments of merchant ${owner.merchantId} (${modeText(owner.isLive)} mode) go to its own addresses ${setting.addresses.join(", ")}, told apart by unique amounts.`,
  );
}

export async function ownAddressesRemove(ctx: CliContext, options: OwnAddressOptions): Promise<void> {
  const owner = ownerOf(options);
  const network = options.network ?? "tron";
  await withRuntime(ctx, (rt) => rt.gateway.settlement.removeOwnAddressSetting(owner, network));
  say(ctx, `New ${network} payments of merchant ${owner.merchantId} get a fresh address each again.`);
}

export async function unmatchedReceipts(ctx: CliContext, options: OwnAddressOptions): Promise<void> {
  const owner = ownerOf(options);
  const params = { limit: "100", ...(options.state === undefined ? {} : { state: options.state }) };
  const page = await withRuntime(ctx, (rt) => rt.gateway.settlement.listUnmatchedReceipts(owner, params));
  if (options.json) return print(ctx, { unmatched_receipts: page.receipts });
  if (page.receipts.length === 0) return say(ctx, `Merchant ${owner.merchantId} has no ${modeText(owner.isLive)}-mode unmatched receipts.`);
  for (const r of page.receipts) say(ctx, line(r));
}

export async function unmatchedAssign(ctx: CliContext, id: string, options: OwnAddressOptions): Promise<void> {
  const owner = ownerOf(options);
  if (options.transaction === undefined) throw new UsageError("--transaction is required: the id of the transaction the transfer pays.");
  const transactionId = options.transaction;
  const receipt = await withRuntime(ctx, (rt) => rt.gateway.settlement.assignUnmatchedReceipt(owner, id, { transaction_id: transactionId }));
  if (options.json) return print(ctx, receipt);
  say(ctx, `Unmatched receipt ${receipt.id} (${receipt.amount} ${receipt.currency}) now counts for transaction ${transactionId}.`);
}

export async function unmatchedRefund(ctx: CliContext, id: string, options: OwnAddressOptions): Promise<void> {
  const owner = ownerOf(options);
  if (options.txHash === undefined) throw new UsageError("--tx-hash is required: the refund transaction you sent from your wallet.");
  const txHash = options.txHash;
  const receipt = await withRuntime(ctx, (rt) => rt.gateway.settlement.refundUnmatchedReceipt(owner, id, { tx_hash: txHash }));
  if (options.json) return print(ctx, receipt);
  say(ctx, `Unmatched receipt ${receipt.id} (${receipt.amount} ${receipt.currency}) is marked refunded in ${receipt.refund_tx_hash}.`);
}
