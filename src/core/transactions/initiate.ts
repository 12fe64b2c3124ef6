// Spec 4.2: choose the crypto currency, lock the rate, hand out a fresh address, INITIATED → PENDING.
import type { CoreDeps } from "../deps.ts";
import { errors, PaygateError } from "../errors.ts";
import type { Caller } from "../credentials.ts";
import { cryptoAmountFor, Decimal } from "../money/amounts.ts";
import { CRYPTO_CURRENCIES, cryptoById, fiatById, type CryptoCurrency, type FiatCurrency } from "../money/currencies.ts";
import { allowedNetworksText, coinNetwork, defaultNetworkOf, isNetworkSlug, networkName, type NetworkSlug } from "../networks.ts";
import { QuoteRefusedError, type PaymentRails, type PriceFeed, type PriceQuote, type QuoteOptions } from "../ports.ts";
import { quoteOptionsOf, rateWithSpread } from "../merchants/pricing.ts";
import { paymentAddressTaken, refuseSharedKeyAtInitiate } from "../merchants/shared-addresses.ts";
import type { MerchantPricingRow } from "../stores/merchants.ts";
import type { IndexLease } from "../stores/transactions.ts";
import { forwarderAddressFor } from "./forwarder-address.ts";
import { ownAddressFor, releaseAmount } from "./own-address.ts";
import { storedRateSources } from "./rate-sources.ts";
import { transactionForInitiate, transactionNotFoundFor } from "./record.ts";
import type { TransactionRecord } from "../records/transactions.ts";
import { idempotently, requestProblems, scopeOf, type IdempotencyScope, type Outcome } from "./idempotency.ts";
import { InitiateBody, parseBody } from "./requests.ts";
import { detailedOutcome, type DetailedOutcome, type DetailsDeps } from "./details.ts";

export type InitiateDeps = Pick<
  CoreDeps,
  "stores" | "credentials" | "prices" | "rails" | "clock" | "lifecycle" | "addressWatch" | "nodes" | "forwarderRails" | "ownAddresses"
> &
  DetailsDeps;

export interface InitiateRequest {
  bearerToken: string | undefined;
  transactionId: string;
  body: unknown;
  /** The `Idempotency-Key` header, when sent. */
  idempotencyKey?: string;
  /** Whether the transaction's client secret may stand in for the secret key (GraphQL: yes; REST, spec 4.2: no). */
  acceptClientSecret?: boolean;
}

/** The coins initiate takes, as its refusal of another lists them: `3 (USDT), 4 (BTC), …`. */
export const SUPPORTED_CURRENCIES = CRYPTO_CURRENCIES.map((c) => `${c.id} (${c.slug})`).join(", ");

/**
 * The transaction as initiate's reply shows it: with its payment URI and QR image, its checkout link
 * (only the secret key or the transaction's client secret initiate, and either may see it) and receipts.
 */
export async function initiatePayment(deps: InitiateDeps, request: InitiateRequest): Promise<DetailedOutcome> {
  return detailedOutcome(deps, await initiateTransaction(deps, request), { clientSecret: true });
}

async function initiateTransaction(deps: InitiateDeps, request: InitiateRequest): Promise<Outcome> {
  const { stores } = deps;
  const parsed = parseBody(InitiateBody, request.body);
  const problems = requestProblems(parsed, request.idempotencyKey);
  if (!parsed.ok || problems.length > 0) throw errors.initiateValidation(problems);
  const body = parsed.value;

  const caller = await deps.credentials.authenticateInitiator(request.bearerToken, { clientSecret: request.acceptClientSecret ?? false });
  // One statement reads the transaction, the merchant's pricing and default network for the coin and,
  // if the transaction is INITIATED, leases an index of the wallet the request will pay to (one round
  // trip where there were three). Leased only for a request that what is known before the read lets
  // through; one the merchant's default network then refuses frees its index.
  const requested = requestedCoin(body);
  const coin = requested.ok ? { currencyId: requested.crypto.id, ...(requested.named === null ? {} : { network: requested.named }) } : null;
  const leasable = requested.ok && caller.merchant.active;
  const now = deps.clock.now();
  const read = await transactionForInitiate(
    stores.transactions,
    caller,
    request.transactionId,
    coin,
    leasable ? { now, until: new Date(now.getTime() + INDEX_LEASE_MS) } : null,
  );
  const { transaction, pricing } = read;
  const checked = checkRequest(deps.rails, caller, body, requested, read.defaultNetwork);
  let early = read.lease;
  if (early && (!checked.ok || read.leasedOn !== checked.network)) {
    await releaseIndex(deps, early);
    early = null;
  }
  if (!transaction) throw await transactionNotFoundFor(deps.stores.transactions, caller, request.transactionId);
  // Before the state checks: a retry of an initiate that went through answers as the first did.
  const scope = scopeOf(request.idempotencyKey, caller, `initiate:${transaction.id}`, body);
  let handedOver = false;
  try {
    return await idempotently(stores, scope, () => {
      handedOver = true;
      return initiateOnce(deps, caller, transaction, checked, scope, early, pricing);
    });
  } finally {
    // A replay (or a key used for other parameters) needs no index.
    if (early && !handedOver) await releaseIndex(deps, early);
  }
}

/** The coin the request asks for and the network it names (null: none named), checked before the read (which leases on them). */
type RequestedCoin = { ok: true; crypto: CryptoCurrency; named: NetworkSlug | null } | { ok: false; error: PaygateError };

function requestedCoin(body: InitiateBody): RequestedCoin {
  const crypto = cryptoById(body.currency_id);
  if (!crypto) return { ok: false, error: errors.unsupportedCurrency(body.currency_id, SUPPORTED_CURRENCIES) };
  const named = body.network ?? null;
  if (named === null) return { ok: true, crypto, named };
  return isCoinNetwork(crypto, named) ? { ok: true, crypto, named } : { ok: false, error: networkRefused(crypto, named) };
}

const isCoinNetwork = (crypto: CryptoCurrency, network: string): network is NetworkSlug =>
  isNetworkSlug(network) && !!coinNetwork(crypto.slug, network);

const networkRefused = (crypto: CryptoCurrency, network: string) =>
  errors.initiateValidation([
    { field: "network", message: `network must be one of ${allowedNetworksText(crypto.slug)} for ${crypto.slug} (got '${network}')` },
  ]);

/** What the request asks for, checked against what needs no transaction: the currency, the refund address, the merchant. */
type CheckedRequest = { ok: true; crypto: CryptoCurrency; network: NetworkSlug; refundAddress: string | null } | { ok: false; error: PaygateError };

function checkRequest(
  rails: PaymentRails,
  caller: Caller,
  body: InitiateBody,
  requested: RequestedCoin,
  merchantDefault: string | null,
): CheckedRequest {
  if (!requested.ok) return requested;
  const { crypto } = requested;
  const network = requested.named ?? merchantDefault ?? defaultNetworkOf(crypto.slug);
  if (!isCoinNetwork(crypto, network)) return { ok: false, error: networkRefused(crypto, network) };
  const refundAddress = body.refund_address ?? null;
  if (refundAddress !== null && !rails.isValidAddress(crypto, caller.isLive, refundAddress, network)) {
    const where = body.network ? ` on ${network}` : "";
    const problem = rails.addressProblem?.(crypto, caller.isLive, refundAddress, network) ?? null;
    const message = `refund_address is not a valid ${crypto.slug} address${where} for ${caller.isLive ? "live" : "test"} mode${problem ? `: it ${problem}` : ""}`;
    return { ok: false, error: errors.initiateValidation([{ field: "refund_address", message }]) };
  }
  if (!caller.merchant.active) return { ok: false, error: errors.notInitiated("merchant_inactive") };
  return { ok: true, crypto, network, refundAddress };
}

/**
 * The checks and the move of spec 4.2, for a request that is not a replay. `early`: the index leased
 * with the read (transactionAndLeaseFor), which this function uses or releases.
 */
async function initiateOnce(
  deps: InitiateDeps,
  caller: Caller,
  transaction: TransactionRecord,
  checked: CheckedRequest,
  scope: IdempotencyScope | null,
  early: IndexLease | null,
  pricing: MerchantPricingRow | null,
): Promise<TransactionRecord> {
  let fiat: FiatCurrency;
  try {
    if (!checked.ok) throw checked.error;
    if (transaction.status !== "INITIATED") throw errors.notInitiated("transaction_not_initiated");
    const found = fiatById(transaction.initializedCurrencyId);
    if (!found) throw new Error(`Transaction ${transaction.id} has unknown fiat currency ${transaction.initializedCurrencyId}`);
    fiat = found;
  } catch (error) {
    if (early) await releaseIndex(deps, early);
    throw error;
  }
  const { crypto, network, refundAddress } = checked;

  // An index is leased in one short statement (the read's, else its own, which finds the wallet too)
  // and used by the move's one statement: no lock is held across round trips, so initiates of one
  // wallet run side by side (docs/wallets-and-chains.md). Leased before the quote, so a merchant
  // without a wallet hears so (404) even while prices are unavailable; a failed quote frees the index.
  let lease = early ?? (await leaseIndex(deps, crypto, network, caller));
  await refuseSharedKey(deps, lease, crypto, network, caller.isLive);
  // No node of the network can be read now: an address handed out there could not be watched.
  if (deps.nodes !== undefined && !(await deps.nodes.reachable(crypto, caller.isLive, network))) {
    await releaseIndex(deps, lease);
    throw errors.nodesUnavailable(networkName(network, caller.isLive));
  }
  let quote: PriceQuote;
  let rate: Decimal;
  let spreadPercent: string;
  let paymentAmount: Decimal;
  try {
    // The merchant's providers and spread (merchant pricing), read with the request's settings.
    spreadPercent = pricing?.spreadPercent == null ? "0" : new Decimal(pricing.spreadPercent.toString()).toFixed();
    quote = await quoteOrUnavailable(deps.prices, crypto, fiat, caller.isLive, quoteOptionsOf(pricing));
    rate = rateWithSpread(quote.rate, spreadPercent);
    paymentAmount = cryptoAmountFor(new Decimal(transaction.initializedAmount.toString()), rate, crypto);
  } catch (error) {
    await releaseIndex(deps, lease);
    throw error;
  }

  const now = deps.clock.now();
  const fields = {
    paymentCurrencyId: crypto.id,
    paymentNetwork: network,
    paymentAmount: paymentAmount.toFixed(),
    quoteRate: rate.toFixed(),
    quoteMarketRate: quote.rate.toFixed(),
    quoteSpreadPercent: spreadPercent,
    quoteSource: quote.source,
    quotedAt: quote.quotedAt,
    quoteSources: storedRateSources(quote.sources),
    refundAddress,
    // The merchant's expires_in when given at initialize (policies.ts), else the operator's window.
    expiresAt: new Date(
      now.getTime() + (transaction.policyExpiresIn === null ? deps.lifecycle.checkoutWindowMs : transaction.policyExpiresIn * 1000),
    ),
  };
  // Deposit forwarders (issue 40): the forwarder's address instead of the key's, when the merchant chose them.
  let forwarder: string | null;
  try {
    forwarder = await forwarderAddressFor(deps, { merchantId: caller.merchant.id, isLive: caller.isLive, network, transactionId: transaction.id });
  } catch (error) {
    await releaseIndex(deps, lease);
    throw error;
  }
  // Own addresses (TRON, issue 40): one of the merchant's own addresses and a unique amount, when it chose them.
  let own: Awaited<ReturnType<typeof ownAddressFor>> = null;
  try {
    own =
      forwarder === null
        ? await ownAddressFor(deps, {
            merchantId: caller.merchant.id,
            isLive: caller.isLive,
            network,
            crypto,
            transactionId: transaction.id,
            amount: paymentAmount,
            expiresAt: fields.expiresAt,
          })
        : null;
  } catch (error) {
    await releaseIndex(deps, lease);
    throw error;
  }
  if (own !== null) fields.paymentAmount = own.amount.toFixed();
  const freeAll = async (held: IndexLease) => {
    await releaseIndex(deps, held);
    if (own !== null) await releaseAmount(deps, transaction.id);
  };
  for (let attempt = 1; ; attempt++) {
    let outcome: Awaited<ReturnType<typeof deps.stores.transactions.moveToPending>>;
    try {
      const address =
        forwarder ?? own?.address ?? deriveOrUnavailable(deps.rails, crypto, network, caller.isLive, lease.extendedPublicKey, lease.index);
      const ownAddressIndex = own?.index ?? null;
      outcome = await deps.stores.transactions.moveToPending({
        transaction,
        lease,
        address,
        ownAddressIndex,
        forwarder: forwarder !== null,
        idempotency: scope,
        now,
        fields,
      });
    } catch (error) {
      await freeAll(lease);
      throw error;
    }
    if (typeof outcome === "object") {
      // Not waited for: the reply does not depend on the node, and the watcher's pass takes what this misses.
      const handedOut = outcome.moved.paymentAddress;
      // Watched from its hand-out time: a node that imports it late still finds a payment mined before.
      if (handedOut !== null)
        deps.addressWatch?.handedOut(crypto, caller.isLive, handedOut, network, outcome.moved.initiatedAt ?? now).catch(() => {});
      return outcome.moved;
    }
    // The move is conditional on INITIATED: of racing initiates, exactly one gets here with a row.
    if (outcome === "not_initiated" || outcome === "address_taken") {
      await freeAll(lease);
      throw outcome === "address_taken" ? paymentAddressTaken(crypto.slug, network, caller.isLive) : errors.notInitiated("transaction_not_initiated");
    }
    // lease_lost: this request stalled past its lease and the index went to another; take a new one.
    if (attempt >= LEASE_ATTEMPTS) {
      if (own !== null) await releaseAmount(deps, transaction.id);
      throw walletBusy(crypto);
    }
    lease = await leaseIndex(deps, crypto, network, caller);
    await refuseSharedKey(deps, lease, crypto, network, caller.isLive);
  }
}

/** A wallet on an EVM key another of the merchant's wallets has (set before issue 42 refused it): 409, the lease freed. */
async function refuseSharedKey(deps: InitiateDeps, lease: IndexLease, crypto: CryptoCurrency, network: NetworkSlug, isLive: boolean): Promise<void> {
  try {
    const wallet = { walletId: lease.walletId, coin: crypto.slug, network, isLive, extendedPublicKey: lease.extendedPublicKey };
    refuseSharedKeyAtInitiate(wallet, lease.siblings ?? []);
  } catch (error) {
    await releaseIndex(deps, lease);
    throw error;
  }
}

/** How long an initiate may hold an index before another may take it: far above the few ms it needs, or a slow price feed's timeout. */
export const INDEX_LEASE_MS = 60_000;
/**
 * A wallet's places for indexes no transaction holds (leased or free): so many unused indexes at most,
 * below the gap limit of 20 that wallets scan past the last used address, so none is missed.
 */
export const INDEX_SLOTS = 19;
const LEASE_ATTEMPTS = 3;
/** Waits between tries while a wallet is full (all its unused indexes in flight): about 2 s in all. */
const FULL_WAITS_MS = [5, 10, 20, 40, 80, 160, 320, 640, 800];

async function leaseIndex(deps: InitiateDeps, crypto: CryptoCurrency, network: NetworkSlug, caller: Caller): Promise<IndexLease> {
  const wallet = { merchantId: caller.merchant.id, currencyId: crypto.id, network, isLive: caller.isLive };
  for (let attempt = 0; ; attempt++) {
    const now = deps.clock.now();
    const lease = await deps.stores.transactions.leaseIndex(wallet, now, new Date(now.getTime() + INDEX_LEASE_MS), INDEX_SLOTS);
    if (lease === null)
      throw errors.processorNotConfigured(crypto.slug, caller.isLive, network === defaultNetworkOf(crypto.slug) ? undefined : network);
    if (lease !== "full") return lease;
    const wait = FULL_WAITS_MS[attempt];
    if (wait === undefined) throw walletBusy(crypto);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** Best effort: a lease that cannot be released now (the database is away) frees itself when it runs out. */
async function releaseIndex(deps: InitiateDeps, lease: IndexLease): Promise<void> {
  try {
    await deps.stores.transactions.releaseIndex(lease);
  } catch {
    // Nothing to add to the error the caller is already answering with.
  }
}

const walletBusy = (crypto: CryptoCurrency) =>
  errors.upstreamUnavailable(`Too many ${crypto.slug} payment addresses are being handed out at once; retry shortly`, "wallet_busy");

export async function quoteOrUnavailable(
  prices: PriceFeed,
  crypto: CryptoCurrency,
  fiat: NonNullable<ReturnType<typeof fiatById>>,
  isLive: boolean,
  options?: QuoteOptions,
): Promise<PriceQuote> {
  try {
    const quote = await prices.quote(crypto, fiat, isLive, options);
    if (!quote.rate.isFinite() || quote.rate.lte(0)) throw new Error(`non-positive rate ${quote.rate.toString()}`);
    return quote;
  } catch (error) {
    if (error instanceof PaygateError) throw error;
    throw errors.quoteUnavailable(crypto.slug, fiat.slug, error instanceof QuoteRefusedError ? error.summary : undefined);
  }
}

function deriveOrUnavailable(rails: PaymentRails, crypto: CryptoCurrency, network: NetworkSlug, isLive: boolean, key: string, index: number): string {
  try {
    return rails.deriveAddress(crypto, isLive, key, index, network);
  } catch {
    throw errors.upstreamUnavailable(
      `A ${crypto.slug} payment address could not be generated; retry shortly, or check the merchant's wallet key`,
      "address_unavailable",
    );
  }
}
