// Initiate's side of own-address mode (issue 40; docs/settlement.md, Own addresses): when the merchant
// settles a TRON network to its own addresses in this mode, the payment goes to one of its first k own
// addresses (branch 2 of its key) and its amount becomes the locked amount plus n base units
// (1 ≤ n ≤ N), an amount no other open payment of that address holds. The database's unique index
// decides between instances; a pick another took meanwhile is picked again. The setting and the
// unmatched receipts are core/own-addresses'.
import type { CoreDeps } from "../deps.ts";
import { errors } from "../errors.ts";
import { Decimal } from "../money/amounts.ts";
import type { CryptoCurrency } from "../money/currencies.ts";
import { CHAINS, coinsOn, networkName, type NetworkSlug } from "../networks.ts";
import type { OwnAddressPolicy } from "../records/own-addresses.ts";
import type { PaymentRails } from "../ports.ts";
import type { OwnAddressStore } from "../stores/own-addresses.ts";

export type OwnAddressDeps = Pick<CoreDeps, "stores" | "rails" | "clock" | "ownAddresses">;

export const DEFAULT_OWN_ADDRESS_POLICY: OwnAddressPolicy = { maxExtraUnits: 999, holdAfterWindowMs: 24 * 3_600_000 };

export const policyOf = (deps: Pick<CoreDeps, "ownAddresses">): OwnAddressPolicy => deps.ownAddresses ?? DEFAULT_OWN_ADDRESS_POLICY;

/** The networks that take own-address mode: TRON's. */
export const OWN_ADDRESS_NETWORKS: readonly NetworkSlug[] = (Object.keys(CHAINS) as NetworkSlug[]).filter((n) => CHAINS[n].family === "tron");

/** The own addresses of the merchant's wallet on the network in the mode (its first coin's key), or none without a wallet. */
export async function ownAddressesOf(
  deps: { stores: { ownAddresses: Pick<OwnAddressStore, "walletKey"> }; rails: Pick<PaymentRails, "ownAddress"> },
  merchantId: number,
  network: NetworkSlug,
  isLive: boolean,
  count: number,
): Promise<string[]> {
  for (const coin of coinsOn(network)) {
    const key = await deps.stores.ownAddresses.walletKey(merchantId, coin.id, network, isLive);
    if (key === null || deps.rails.ownAddress === undefined) continue;
    const derive = deps.rails.ownAddress.bind(deps.rails);
    return Array.from({ length: count }, (_, i) => derive(coin, isLive, key, i, network));
  }
  return [];
}

/** Picks after which a payment that keeps losing races hears 503 (retry). */
const RESERVE_ATTEMPTS = 8;

export interface OwnPayment {
  merchantId: number;
  isLive: boolean;
  network: NetworkSlug;
  crypto: CryptoCurrency;
  transactionId: string;
  /** The locked amount, in the coin. */
  amount: Decimal;
  expiresAt: Date;
}

/** The own address, its index and the unique amount held for the payment; null: the mode is off (a fresh address). */
export async function ownAddressFor(
  deps: OwnAddressDeps & Pick<CoreDeps, "clock">,
  payment: OwnPayment,
): Promise<{ index: number; address: string; amount: Decimal } | null> {
  if (!OWN_ADDRESS_NETWORKS.includes(payment.network)) return null;
  const setting = await deps.stores.ownAddresses.setting(payment.merchantId, payment.network, payment.isLive);
  if (setting === null) return null;
  const addresses = await ownAddressesOf(deps, payment.merchantId, payment.network, payment.isLive, setting.addressCount);
  if (addresses.length === 0) return null;
  const policy = policyOf(deps);
  const unit = new Decimal(1).div(new Decimal(10).pow(payment.crypto.decimals));
  for (let attempt = 0; attempt < RESERVE_ATTEMPTS; attempt++) {
    const now = deps.clock.now();
    const held = await deps.stores.ownAddresses.reserve({
      network: payment.network,
      isLive: payment.isLive,
      currencyId: payment.crypto.id,
      addresses,
      base: payment.amount.toFixed(),
      unit: unit.toFixed(),
      maxExtraUnits: policy.maxExtraUnits,
      transactionId: payment.transactionId,
      now,
      heldUntil: new Date(payment.expiresAt.getTime() + policy.holdAfterWindowMs),
    });
    if (held.held) return { index: addresses.indexOf(held.address), address: held.address, amount: new Decimal(held.amount) };
    if (held.reason === "full")
      throw errors.ownAddressesFull(
        `${payment.crypto.slug} on ${networkName(payment.network, payment.isLive)}`,
        addresses.length,
        policy.maxExtraUnits,
      );
  }
  throw errors.ownAddressesBusy();
}

/** Best effort: an amount that cannot be freed now (the database is away) frees itself when its hold runs out. */
export async function releaseAmount(deps: Pick<CoreDeps, "stores">, transactionId: string): Promise<void> {
  try {
    await deps.stores.ownAddresses.release(transactionId);
  } catch {
    // Nothing to add to the error the caller is already answering with.
  }
}
