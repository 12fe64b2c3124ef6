// The merchant's default network per coin, as the dashboard shows and sets it: for each coin paid on
// several networks (USDT), the network a request without `network` is paid on in a mode. Setting one
// goes through updateMerchant (its checks, its audit entry default_network.set); a network the
// merchant has no wallet for in the mode is refused there.
import type { ChangeAuthor } from "../access/audit-log.ts";
import { errors } from "../errors.ts";
import { cryptoBySlug } from "../money/currencies.ts";
import { COIN_NETWORKS, defaultNetworkOf, networkName, networksOf, type NetworkSlug } from "../networks.ts";
import { type MerchantDeps, updateMerchant } from "./merchants.ts";

export interface DefaultNetworkChoice {
  /** The coin (USDT). */
  currency: string;
  /** The network used when a request names none: the merchant's choice, else the table's default. */
  network: NetworkSlug;
  /** Whether the merchant chose it (false: the networks table's default). */
  chosen: boolean;
  /** The coin's networks in the table's order, with whether the merchant has a wallet there in the mode. */
  networks: { network: NetworkSlug; name: string; standard: string | null; hasWallet: boolean }[];
}

/** Every coin paid on several networks, in the table's order, with its default network in the mode. */
export async function defaultNetworkChoices(
  deps: Pick<MerchantDeps, "stores">,
  merchantId: number,
  isLive: boolean,
): Promise<DefaultNetworkChoice[]> {
  const [chosen, wallets] = await Promise.all([
    deps.stores.merchants.defaultNetworks(merchantId),
    deps.stores.transactions.walletCurrencies(merchantId, isLive),
  ]);
  const coins = [...new Set(COIN_NETWORKS.map((row) => row.coin))].filter((coin) => networksOf(coin).length > 1);
  return coins.map((coin) => {
    const currency = cryptoBySlug(coin);
    const set = chosen.find((d) => d.currencyId === currency?.id && d.isLive === isLive);
    return {
      currency: coin,
      network: set?.network ?? defaultNetworkOf(coin),
      chosen: set !== undefined,
      networks: networksOf(coin).map((row) => ({
        network: row.network,
        name: networkName(row.network, isLive),
        standard: row.standard,
        hasWallet: wallets.some((w) => w.currencyId === currency?.id && w.network === row.network),
      })),
    };
  });
}

/** Sets the coin's default network in the mode (refused: an unknown coin, a network not carrying it, one without a wallet). */
export async function setDefaultNetwork(
  deps: MerchantDeps,
  merchantId: number,
  request: { currency: string; network: string; isLive: boolean },
  by: ChangeAuthor,
): Promise<DefaultNetworkChoice[]> {
  const currency = cryptoBySlug(request.currency.toUpperCase());
  if (!currency) throw errors.invalidMerchantSettings(`currency must be a coin this gateway takes (got '${request.currency}')`);
  await updateMerchant(deps, merchantId, { defaultNetworks: [{ currency, network: request.network, isLive: request.isLive }] }, by);
  return defaultNetworkChoices(deps, merchantId, request.isLive);
}
