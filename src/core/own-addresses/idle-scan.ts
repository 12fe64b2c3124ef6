// The idle scan of own addresses (issue 40; docs/settlement.md, Own addresses): a payment's read of its
// own address finds the transfers no open amount matches only while some payment on that address is
// watched. A customer who pays after every window closed, or a transfer with no payment open, would go
// unseen; so the payment watcher also reads, per own-address setting, each of its k addresses since
// the setting's cursor, and hands every transfer to the store, which records it as an unmatched
// receipt unless an open amount or a payment takes it (matching.ts, recordUnmatchedReceipt).
import type { CryptoCurrency } from "../money/currencies.ts";
import { coinsOn, isNetworkSlug, type NetworkSlug } from "../networks.ts";
import type { ChainWatcher, Clock, ObservedReceipt, PaymentRails } from "../ports.ts";
import type { OwnAddressSettingRecord } from "../records/own-addresses.ts";
import type { OwnAddressStore } from "../stores/own-addresses.ts";
import type { WatchShare } from "../stores/transactions.ts";
import { OWN_ADDRESS_NETWORKS, ownAddressesOf } from "../transactions/own-address.ts";
import { recordUnmatchedReceipt } from "./matching.ts";

/** What the scan needs: the settings and their cursors, the merchants' keys, the record of a receipt. */
export interface IdleScanDeps {
  stores: { ownAddresses: Pick<OwnAddressStore, "allSettings" | "advanceScan" | "walletKey" | "recordUnmatched"> };
  rails: Pick<PaymentRails, "ownAddress">;
  clock: Clock;
}

/**
 * How far back a scan reads at most: a setting whose cursor is older (its node was down, or not
 * configured, for longer) is read from 7 days ago, so a catch-up stays bounded (on TRON about 200,000
 * blocks: 100 log requests of 2,000 blocks per address); a transfer older than that is not reported.
 */
export const SCAN_CATCH_UP_MS = 7 * 24 * 3_600_000;

/** The chain side (src/rails/chains): the watch pass's own port, whose `supports` says which coins and modes a node reads. */
export interface IdleScanChains extends ChainWatcher {
  supports?(currency: CryptoCurrency, isLive: boolean, network?: NetworkSlug): boolean;
}

export interface IdleScanSettings {
  /** On the network (core/networks.ts): what a receipt's confirmations are read against. */
  requiredConfirmations(currency: CryptoCurrency, network?: NetworkSlug): number;
  /** Settings scanned at once (each reads its addresses one after another). Default 1. */
  concurrency?: number;
}

/** One own address's read, as the scan tells its observer. */
export interface IdleScanRead {
  merchantId: number;
  currency: CryptoCurrency;
  network: NetworkSlug;
  isLive: boolean;
  address: string;
}

/** What the job hears of a scan (its logs and metrics, as for a pass). */
export interface IdleScanObserver {
  /** The node did not answer for this address: the setting's cursor stays, and the next scan reads it again. */
  readFailed?(read: IdleScanRead, error: unknown): void;
  answered?(read: IdleScanRead): void;
}

export interface IdleScanOutcome {
  /** Settings of this share whose addresses were read. */
  settings: number;
  /** Addresses read. */
  read: number;
  /** Reads the node failed. */
  failed: number;
  /** Unmatched receipts recorded new. */
  recorded: number;
  /** The first error of the store (not of a node): the scan went on with the other settings, and the job says it once. */
  storeError: { error: unknown } | null;
}

/** The payments' side that scans (the gateway's Payments): what the payment watcher calls after its pass. */
export interface OwnAddressScanner {
  scanOwnAddresses(chains: IdleScanChains, share: WatchShare, settings: IdleScanSettings, observer?: IdleScanObserver): Promise<IdleScanOutcome>;
}

/** A setting is the instance's whose merchant falls to its share: all of a merchant's addresses on one instance. */
export const inShare = (merchantId: number, share: WatchShare): boolean => merchantId % share.of === share.index;

/**
 * Whether the transfer was made while the mode was on: the log search starts 30 min before `since`,
 * so it also finds what was mined just before the mode was turned on. Blocks tell whole seconds; a
 * reader that tells no block time (TRON's and the EVM token readers tell it) leaves it to `since`.
 */
export function madeSince(receipt: ObservedReceipt, turnedOnAt: Date): boolean {
  return receipt.minedAt === undefined || receipt.minedAt.getTime() >= Math.floor(turnedOnAt.getTime() / 1000) * 1000;
}

/**
 * Reads the own addresses of `share`'s settings and records their unmatched receipts. A setting whose
 * every address was read moves its cursor to this scan's start; one with a failed read keeps it, so the
 * next scan reads the same stretch again (recording is idempotent by address and receipt key).
 */
export async function scanOwnAddresses(
  deps: IdleScanDeps,
  chains: IdleScanChains,
  share: WatchShare,
  settings: IdleScanSettings,
  observer: IdleScanObserver = {},
): Promise<IdleScanOutcome> {
  const started = deps.clock.now();
  const outcome: IdleScanOutcome = { settings: 0, read: 0, failed: 0, recorded: 0, storeError: null };
  const queue = (await deps.stores.ownAddresses.allSettings()).filter(
    (s) => inShare(s.merchantId, share) && isNetworkSlug(s.network) && OWN_ADDRESS_NETWORKS.includes(s.network),
  );
  const work = async () => {
    for (let setting = queue.shift(); setting; setting = queue.shift()) {
      try {
        await scanSetting(deps, chains, settings, observer, setting, started, outcome);
      } catch (error) {
        outcome.storeError ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, settings.concurrency ?? 1) }, work));
  return outcome;
}

async function scanSetting(
  deps: IdleScanDeps,
  chains: IdleScanChains,
  settings: IdleScanSettings,
  observer: IdleScanObserver,
  setting: OwnAddressSettingRecord,
  started: Date,
  outcome: IdleScanOutcome,
): Promise<void> {
  const { merchantId, isLive } = setting;
  const network = setting.network as NetworkSlug;
  // No node reads the coin in this mode: nothing is read, and the cursor waits for one (up to the catch-up bound).
  const coins = coinsOn(network).filter((c) => !chains.supports || chains.supports(c, isLive, network));
  if (coins.length === 0) return;
  const addresses = await ownAddressesOf(deps, merchantId, network, isLive, setting.addressCount);
  if (addresses.length === 0) return;
  outcome.settings++;
  const since = new Date(Math.max(setting.scannedFrom.getTime(), started.getTime() - SCAN_CATCH_UP_MS));
  let everyRead = true;
  for (const currency of coins) {
    for (const address of addresses) {
      const read: IdleScanRead = { merchantId, currency, network, isLive, address };
      let observed: ObservedReceipt[];
      try {
        observed = await chains.receiptsTo(currency, isLive, address, {
          since,
          requiredConfirmations: settings.requiredConfirmations(currency, network),
          network,
          minedAt: true,
        });
      } catch (error) {
        observer.readFailed?.(read, error);
        outcome.failed++;
        everyRead = false;
        continue;
      }
      observer.answered?.(read);
      outcome.read++;
      const now = deps.clock.now();
      const place = { merchantId, isLive, network, address, currencyId: currency.id };
      for (const receipt of observed) {
        if (!madeSince(receipt, setting.turnedOnAt)) continue;
        if ((await recordUnmatchedReceipt(deps, place, receipt, now)) !== null) outcome.recorded++;
      }
    }
  }
  if (everyRead) await deps.stores.ownAddresses.advanceScan(merchantId, network, isLive, started);
}
