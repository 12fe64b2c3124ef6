// Sweep plans (issue 40; docs/settlement.md, Sweeping fresh addresses): for the per-payment addresses
// of a merchant's key on an account network (EVM, TRON), what each still holds, the fee coin moving it
// to the merchant's settlement address needs, the totals and the share of the value the fees take. A
// plan moves nothing and stores nothing: the sweep tool (tools/sweep) signs on the merchant's machine.
import { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { errors, isDatabaseOutage, PaygateError, type FieldError } from "../errors.ts";
import { parseListQuery, single } from "../lists.ts";
import { Decimal } from "../money/amounts.ts";
import { CRYPTO_CURRENCIES, cryptoById, cryptoBySlug, fiatBySlug, type CryptoCurrency } from "../money/currencies.ts";
import { CHAINS, coinNetwork, defaultNetworkOf, isNetworkSlug, networkName, type NetworkSlug } from "../networks.ts";
import type { SweepQuote } from "../ports.ts";
import type { SweepCandidate } from "../stores/settlement.ts";
import type { SettlementOwner } from "./consolidations.ts";
import { type SweepAddressView, type SweepPlanView, sweepTotals, unitsText, usdText } from "./sweep-view.ts";
import { mapLimited } from "../limited.ts";

export type SweepPlanDeps = Pick<CoreDeps, "stores" | "rails" | "prices" | "clock" | "sweepRails">;

/** Addresses one plan reads by default and at most: each costs a few node reads. */
export const SWEEP_PLAN_DEFAULT_LIMIT = 100;
export const SWEEP_PLAN_MAX_LIMIT = 200;
/** Node reads at once: a node is not flooded, a long plan still comes in reasonable time. */
const READS_AT_ONCE = 8;

/** The account networks: a token on a fresh address there needs the network's coin to move (UTXO coins are consolidated instead). */
export const SWEEP_NETWORKS = (Object.keys(CHAINS) as NetworkSlug[]).filter((n) => CHAINS[n].family !== "utxo");
const networksText = SWEEP_NETWORKS.join(", ");

export const SweepPlanParams = z.object({
  network: single.meta({ description: `The account network: ${networksText}.` }),
  destination: single.optional().meta({ description: "Where the funds go; default the forwarder setting's address of that network." }),
  coin: single.optional().meta({ description: "Only this coin's addresses (USDT, ETH…); default every coin paid on the network." }),
  limit: single
    .regex(/^\d{1,3}$/, `must be an integer from 1 to ${SWEEP_PLAN_MAX_LIMIT}`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= SWEEP_PLAN_MAX_LIMIT, `must be an integer from 1 to ${SWEEP_PLAN_MAX_LIMIT}`)
    .optional()
    .meta({ description: `Payments read at most, oldest final first: 1 to ${SWEEP_PLAN_MAX_LIMIT}, default ${SWEEP_PLAN_DEFAULT_LIMIT}.` }),
  starting_after: single.max(100).optional().meta({ description: "The previous plan's `next_starting_after`: the payments after it." }),
});

const refuse = (field: string, message: string) => errors.sweepPlanValidation([{ field, message }]);

/** A coin of the network that addresses are checked with (its own coin, else its first token). */
function addressCoin(network: NetworkSlug): CryptoCurrency {
  const own = cryptoBySlug(CHAINS[network].feeCoin);
  if (own !== undefined && coinNetwork(own.slug, network)) return own;
  return CRYPTO_CURRENCIES.find((c) => coinNetwork(c.slug, network) !== undefined) as CryptoCurrency;
}

async function destinationOf(
  deps: SweepPlanDeps,
  owner: SettlementOwner,
  network: NetworkSlug,
  given: string | undefined,
): Promise<{ address: string; source: "parameter" | "forwarder_setting" }> {
  let destination: { address: string; source: "parameter" | "forwarder_setting" };
  if (given !== undefined && given.trim() !== "") destination = { address: given.trim(), source: "parameter" };
  else {
    const setting = await deps.stores.forwarders.setting(owner.merchantId, network, owner.isLive);
    if (setting === null)
      throw refuse("destination", `destination is required: the merchant has no forwarder setting on ${network} whose address the funds could go to`);
    destination = { address: setting.destination, source: "forwarder_setting" };
  }
  const coin = addressCoin(network);
  if (/^0x0{40}$/i.test(destination.address)) throw refuse("destination", "destination cannot be the zero address: money sent there is lost");
  if (!deps.rails.isValidAddress(coin, owner.isLive, destination.address, network)) {
    const problem = deps.rails.addressProblem?.(coin, owner.isLive, destination.address, network) ?? null;
    throw refuse("destination", `destination is not an address of ${networkName(network, owner.isLive)}${problem ? `: it ${problem}` : ""}`);
  }
  return destination;
}

/** GET /v1/settlements/sweep-plan: the plan of up to `limit` settled payments' addresses on the network. */
export async function sweepPlan(deps: SweepPlanDeps, owner: SettlementOwner, params: Record<string, unknown>): Promise<SweepPlanView> {
  const query = parseSweepParams(params);
  const network = query.network;
  const destination = await destinationOf(deps, owner, network, query.destination);
  const limit = query.limit ?? SWEEP_PLAN_DEFAULT_LIMIT;
  const defaultCoinIds = CRYPTO_CURRENCIES.filter((c) => defaultNetworkOf(c.slug) === network).map((c) => c.id);
  const rows = await deps.stores.settlement.sweepCandidates({
    merchantId: owner.merchantId,
    isLive: owner.isLive,
    network,
    defaultCoinIds,
    after: query.starting_after ?? null,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const mine = ownAddresses(deps, owner, network, page).filter((c) => query.coin === undefined || c.currency.slug === query.coin.slug);
  const quotes = await mapLimited(mine, READS_AT_ONCE, async ({ row, currency }) => ({
    row,
    currency,
    quote: await quoteOf(deps, owner, network, currency, row.address, destination.address),
  }));
  const held = quotes.filter((q) => q.quote.held > 0n);
  const rates = await usdRates(deps, owner.isLive, [...new Set([...held.map((q) => q.currency.slug), CHAINS[network].feeCoin])]);
  const addresses = held.map((q) => addressView(q.row, q.currency, network, q.quote, rates));
  const last = page.at(-1);
  return {
    object: "sweep_plan",
    is_live: owner.isLive,
    network,
    network_name: networkName(network, owner.isLive),
    fee_coin: CHAINS[network].feeCoin,
    destination: destination.address,
    destination_source: destination.source,
    addresses,
    totals: sweepTotals(addresses, rates.get(CHAINS[network].feeCoin)?.rate ?? null),
    rates: [...rates.entries()].map(([coin, r]) => ({ coin, usd: r.rate?.toFixed() ?? null, source: r.source, problem: r.problem })),
    payments_read: page.length,
    limit,
    has_more: rows.length > limit,
    next_starting_after: rows.length > limit && last ? last.transactionId : null,
    created_at: deps.clock.now().toISOString(),
  };
}

function parseSweepParams(params: Record<string, unknown>) {
  const query = parseListQuery(SweepPlanParams, params);
  const raw = query.network.trim().toLowerCase();
  const problems: FieldError[] = [];
  const network = isNetworkSlug(raw) && SWEEP_NETWORKS.includes(raw) ? raw : null;
  if (network === null) problems.push({ field: "network", message: `network must be one of ${networksText} (got '${query.network}')` });
  const coin = query.coin === undefined ? undefined : cryptoBySlug(query.coin.trim().toUpperCase());
  if (query.coin !== undefined && (coin === undefined || (network !== null && !coinNetwork(coin.slug, network))))
    problems.push({ field: "coin", message: `coin must be a coin paid on ${network ?? "the network"} (got '${query.coin}')` });
  if (problems.length > 0 || network === null) throw errors.sweepPlanValidation(problems);
  return { ...query, network, coin };
}

/** The rows whose address is the one derived from the wallet's key at their index: a payment to anything else (a forwarder, a shared address) is not the tool's to sweep. */
function ownAddresses(deps: SweepPlanDeps, owner: SettlementOwner, network: NetworkSlug, rows: readonly SweepCandidate[]) {
  const seen = new Set<string>();
  return rows.flatMap((row) => {
    const currency = cryptoById(row.currencyId);
    if (currency === undefined || seen.has(`${currency.slug}:${row.address.toLowerCase()}`)) return [];
    let derived: string;
    try {
      derived = deps.rails.deriveAddress(currency, owner.isLive, row.extendedPublicKey, row.derivationIndex, network);
    } catch {
      return [];
    }
    if (derived.toLowerCase() !== row.address.toLowerCase()) return [];
    seen.add(`${currency.slug}:${row.address.toLowerCase()}`);
    return [{ row, currency }];
  });
}

async function quoteOf(
  deps: SweepPlanDeps,
  owner: SettlementOwner,
  network: NetworkSlug,
  currency: CryptoCurrency,
  address: string,
  destination: string,
): Promise<SweepQuote> {
  const name = `The ${networkName(network, owner.isLive)} node`;
  if (deps.sweepRails === undefined) throw errors.sweepNodeUnavailable(name, "no chain node is configured in this process");
  try {
    return await deps.sweepRails.quote({ currency, isLive: owner.isLive, network, address, destination });
  } catch (error) {
    if (error instanceof PaygateError || isDatabaseOutage(error)) throw error;
    throw errors.sweepNodeUnavailable(name, error instanceof Error ? error.message : String(error));
  }
}

export interface UsdRate {
  rate: Decimal | null;
  source: string | null;
  problem: string | null;
}

/** The current (test mode: the test) USD rate of each coin; one the feed cannot give is null with its reason, and the plan still comes. */
async function usdRates(deps: SweepPlanDeps, isLive: boolean, coins: readonly string[]): Promise<Map<string, UsdRate>> {
  const usd = fiatBySlug("USD");
  const out = new Map<string, UsdRate>();
  for (const coin of coins) {
    const crypto = cryptoBySlug(coin);
    if (crypto === undefined || usd === undefined) {
      out.set(coin, { rate: null, source: null, problem: `paygate has no price of ${coin}` });
      continue;
    }
    try {
      const quote = await deps.prices.quote(crypto, usd, isLive);
      out.set(coin, { rate: quote.rate, source: quote.source, problem: null });
    } catch (error) {
      if (isDatabaseOutage(error)) throw error;
      out.set(coin, { rate: null, source: null, problem: error instanceof Error ? error.message : String(error) });
    }
  }
  return out;
}

function addressView(
  row: SweepCandidate,
  currency: CryptoCurrency,
  network: NetworkSlug,
  q: SweepQuote,
  rates: Map<string, UsdRate>,
): SweepAddressView {
  const isToken = q.token !== null;
  const feeCoin = CHAINS[network].feeCoin;
  // A token needs the fee coin on the address; the chain's own coin pays its own fee out of what it holds.
  const topUp = isToken && q.feeCoinHeld < q.transferFee ? q.transferFee - q.feeCoinHeld : 0n;
  const topUpFee = topUp > 0n ? q.topUpFee : 0n;
  const total = q.transferFee + topUpFee;
  const toSend = isToken ? q.held : q.held - q.transferFee;
  const skipped = !isToken && toSend <= 0n ? `holds less than the ${unitsText(q.transferFee, q.feeCoinDecimals)} ${feeCoin} moving it costs` : null;
  const valueRate = rates.get(currency.slug)?.rate ?? null;
  const feeRate = rates.get(feeCoin)?.rate ?? null;
  const held = new Decimal(unitsText(q.held, q.decimals));
  const fee = new Decimal(unitsText(total, q.feeCoinDecimals));
  const relative = `0/${row.derivationIndex}`;
  const origin = row.keyOrigin?.replace(/^[0-9a-fA-F]{8}/, "m");
  return {
    transaction_id: row.transactionId,
    address: row.address,
    coin: currency.slug,
    token_contract: q.token,
    decimals: q.decimals,
    account_key: row.extendedPublicKey,
    derivation_index: row.derivationIndex,
    derivation_path: relative,
    full_path: origin === undefined ? null : `${origin}/${relative}`,
    held: held.toFixed(),
    held_units: q.held.toString(),
    fee_coin_held: unitsText(q.feeCoinHeld, q.feeCoinDecimals),
    fee_coin_held_units: q.feeCoinHeld.toString(),
    fee: {
      source: q.source,
      note: q.note,
      gas: q.gas?.toString() ?? null,
      gas_price: q.gasPrice?.toString() ?? null,
      bandwidth: q.bandwidth?.toString() ?? null,
      activation: q.activation?.toString() ?? null,
      transfer: unitsText(q.transferFee, q.feeCoinDecimals),
      transfer_units: q.transferFee.toString(),
      top_up: unitsText(topUp, q.feeCoinDecimals),
      top_up_units: topUp.toString(),
      top_up_fee: unitsText(topUpFee, q.feeCoinDecimals),
      top_up_fee_units: topUpFee.toString(),
      total: fee.toFixed(),
      total_units: total.toString(),
    },
    to_send: skipped === null ? unitsText(toSend, q.decimals) : "0",
    to_send_units: skipped === null ? toSend.toString() : "0",
    value_usd: valueRate === null ? null : usdText(held.times(valueRate)),
    fee_usd: feeRate === null ? null : usdText(fee.times(feeRate)),
    skipped,
  };
}
