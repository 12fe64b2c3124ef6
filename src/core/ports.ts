// What the core needs from the outside world. Adapters in src/rails implement these; the core
// imports none of them. What it needs from its database is in stores.ts.
import type { Decimal } from "decimal.js";
import type { CryptoCurrency, FiatCurrency } from "./money/currencies.ts";
import type { NetworkSlug } from "./networks.ts";
import type { AttemptRecord, EventOutcome } from "./records/events.ts";

/** A price: how many units of `fiat` one unit of `crypto` costs, where it came from and when. */
export interface PriceQuote {
  rate: Decimal;
  source: string;
  quotedAt: Date;
  /** How the rate was reached when it is not the provider's own price of the pair (a conversion through USDT). */
  detail?: string;
  /** When several providers were asked (the median): what each gave, used or not; locked with the quote. */
  sources?: readonly RateSource[];
}

/** One provider's part in a quote that asked several. */
export interface RateSource {
  provider: string;
  /** Its rate, a decimal string; null when it gave none. */
  rate: string | null;
  /** When its answer was fetched; null when it gave none. */
  quotedAt: Date | null;
  /** Whether its rate is one the locked rate is the median of. */
  used: boolean;
  /** Why it was left out (timeout, forbidden, rate_limited, garbage, stale, out_of_spread, …); null when used. */
  reason: string | null;
  /** The provider's failure, its distance from the median, or how its rate was reached. */
  detail: string | null;
}

/**
 * A feed that asked several providers and could not agree on a rate. `summary` names each provider and
 * why it was left out; it is safe to show an API client (no URL, no key).
 */
export class QuoteRefusedError extends Error {
  constructor(
    readonly summary: string,
    readonly sources: readonly RateSource[],
  ) {
    super(summary);
    this.name = "QuoteRefusedError";
  }
}

/** What a quote asks of a feed that has several providers. */
export interface QuoteOptions {
  /**
   * The merchant's providers, in its order (merchant pricing): a single-source feed takes the first that
   * answers fresh, the median the subset. Names the feed does not know are left out; when fewer than
   * the feed needs are left (its `providers.atLeast`), every configured provider is asked, as without them.
   */
  providers?: readonly string[];
}

export interface PriceFeed {
  /** Rejects with UpstreamUnavailableError when no fresh quote can be had. */
  quote(crypto: CryptoCurrency, fiat: FiatCurrency, isLive: boolean, options?: QuoteOptions): Promise<PriceQuote>;
  /**
   * The live providers a merchant may choose from, in the operator's order, and how many of them a choice must
   * name (the median's quorum; 1 otherwise). Absent: the feed offers no choice.
   */
  readonly providers?: { names: readonly string[]; atLeast: number };
}

/** `depth` and `childIndex` (BIP 32's, as the key records them), when the rails read them: a key origin is checked against them. */
export type ExtendedKeyCheck = { ok: true; depth?: number; childIndex?: number } | { ok: false; reason: string };

/**
 * Addresses and payment requests of each chain, from the merchant's extended public keys. `network`
 * (core/networks.ts) is the network the coin is paid on; absent, the coin's default network.
 */
export interface PaymentRails {
  /** The receive address at `index` below the account-level extended public key. Throws on a bad key. */
  deriveAddress(currency: CryptoCurrency, isLive: boolean, extendedPublicKey: string, index: number, network?: NetworkSlug): string;
  /**
   * TRON own-address mode (issue 40): the merchant's own address `index`, on branch 2 of the account key
   * (<account>/2/index), apart from the per-payment addresses (<account>/0/…). Throws on a bad key or a
   * network without the mode.
   */
  ownAddress?(currency: CryptoCurrency, isLive: boolean, extendedPublicKey: string, index: number, network: NetworkSlug): string;
  /** Whether `address` is a well-formed address of the currency's network in that mode. */
  isValidAddress(currency: CryptoCurrency, isLive: boolean, address: string, network?: NetworkSlug): boolean;
  /** What is wrong with an address isValidAddress refuses ("has a checksum that does not match…"), for the message; null when there is no more to say. */
  addressProblem?(currency: CryptoCurrency, isLive: boolean, address: string, network?: NetworkSlug): string | null;
  /** Whether the key parses and belongs to the currency's network in that mode; says why not. */
  checkExtendedPublicKey(currency: CryptoCurrency, isLive: boolean, extendedPublicKey: string, network?: NetworkSlug): ExtendedKeyCheck;
  /** A fresh test-network account for test mode; only its extended public key is kept. */
  createTestWallet(currency: CryptoCurrency, network?: NetworkSlug): string;
  /** The URI a wallet app understands (BIP21, EIP-681 with the network's chain id) asking for `amount` to `address`. */
  paymentUri(currency: CryptoCurrency, isLive: boolean, address: string, amount: Decimal, network?: NetworkSlug): string;
}

export interface QrRenderer {
  /** A `data:image/png;base64,…` URL of a QR code holding `text`; `secret`: the text is a secret, never kept in a cache. */
  dataUrl(text: string, options?: { secret?: boolean }): Promise<string>;
}

export interface Clock {
  now(): Date;
}

/**
 * One receipt of value at a payment address as a chain node sees it now: a UTXO output, a token
 * Transfer log, a native EVM coin transfer (a transaction to the address), or the part of a native
 * balance that no transfer found explains (coins sent inside contract calls), split into its
 * confirmed and unconfirmed parts.
 */
export interface ObservedReceipt {
  /**
   * Stable within the address across polls: `txid:vout`, `txHash:logIndex` (a token transfer), `txHash`
   * (a native transfer), `balance:internal:confirmed` / `balance:internal:unconfirmed` (the balance part).
   */
  key: string;
  /** The chain transaction, when there is one to show. */
  txHash: string | null;
  /** In coin units (BTC, not satoshi), exact. */
  amount: Decimal;
  /** 0 while unconfirmed. */
  confirmations: number;
  blockHeight: number | null;
  /**
   * Unconfirmed and signalling replaceability (BIP 125: an input's nSequence below 0xfffffffe, or an
   * unconfirmed parent that signals): its sender can replace it, so 0 confirmations never count it.
   */
  replaceable?: boolean;
  /**
   * Whether the node's finality checkpoint covers its block (an EVM node's `finalized` block tag, where
   * the operator asked for it); absent: the backend does not tell, and depth decides (lifecycle.ts).
   */
  finalized?: boolean;
  /** Its block's time, when asked for (`minedAt` of receiptsTo's options) and the backend tells it. */
  minedAt?: Date;
}

export interface ChainWatcher {
  /**
   * Every receipt to `address` on the node's current best chain: one reorganised away is simply
   * absent, and the caller records an absent receipt as dropped (applyReceipts), so one still on the
   * chain must never be left out, however old. `since` is when the address was handed out (nothing
   * can have arrived before).
   * Rejects when the node cannot be reached or answers nonsense; the caller tries again later.
   */
  receiptsTo(
    currency: CryptoCurrency,
    isLive: boolean,
    address: string,
    /**
     * `network`: the network the coin is paid on (core/networks.ts); absent, the coin's default.
     * `settled`: the payment succeeded and is watched only until final: a backend that pays per address
     * (Esplora) may answer from its last read while no block came.
     * `minedAt`: give each mined receipt its block's time (a token's EVM or TRON reader does; one
     * block header per block, remembered): the idle scan of own addresses leaves out what was mined
     * before the mode was turned on, which the log search's margin before `since` still finds.
     */
    options: { since: Date; requiredConfirmations: number; network?: NetworkSlug; settled?: boolean; minedAt?: boolean },
  ): Promise<ObservedReceipt[]>;
}

/** What one handed-out address holds now, in coin units, exact. */
export interface AddressHoldings {
  /** The coin paid to it: the token, or the chain's own coin. */
  coin: Decimal;
  /** The network's fee coin (CHAINS[network].feeCoin), which moving a token off needs; for a chain's own coin, `coin` again. */
  feeCoin: Decimal;
}

/** Balances of handed-out addresses, read from the chain nodes (src/rails/chains). */
export interface AddressBalances {
  /** Rejects when no node of the network and mode is configured, or the node cannot say. */
  holdings(currency: CryptoCurrency, isLive: boolean, address: string, network: NetworkSlug): Promise<AddressHoldings>;
}

/**
 * Told of each address initiate hands out. A backend that must be told of an address before it can
 * see payments to it (an own node's watch-only wallet) takes it at once instead of at the watcher's
 * next pass, so a payment sent right away is seen at 0 confirmations. Not waited for by initiate: the
 * address is watched from `since` (its hand-out time) however late it reaches the node, so a pass that
 * imports it finds a payment mined before.
 */
export interface AddressWatch {
  /** Never rejects: what it could not do, the watcher's next pass does. */
  handedOut(currency: CryptoCurrency, isLive: boolean, address: string, network: NetworkSlug, since: Date): Promise<void>;
}

/**
 * Whether a network's nodes can be read now (src/rails/chains: its node pool). False only while every
 * node of that network and mode (a list of two or more) is set aside: initiate then refuses that network (503 naming it), as a
 * payment address handed out there could not be watched; the other networks are untouched.
 */
export interface NodeAvailability {
  reachable(currency: CryptoCurrency, isLive: boolean, network: NetworkSlug): Promise<boolean>;
}

/** What one HTTP attempt to a webhook URL came to (never thrown: a failure is a result). */
export interface WebhookAttemptResult {
  ok: boolean;
  /** Null when no HTTP response came back (timeout, refused connection, refused address). */
  statusCode: number | null;
  latencyMs: number;
  /** The first 1 KiB of the response body. */
  responseBody: string | null;
  /** The answer may have come from a private address (the operator allowed one): its body is never shown to merchants' users. */
  privateAddress: boolean;
  error: string | null;
}

/** A signed POST to a merchant's webhook URL, as deliveries make them (src/webhooks). */
export interface WebhookSender {
  /** Signs `body` with every secret given (Standard Webhooks, at `timestamp`) and POSTs it to `url` now. */
  send(request: {
    url: string;
    mode: "test" | "live";
    messageId: string;
    timestamp: Date;
    body: string;
    secrets: string[];
  }): Promise<WebhookAttemptResult>;
}

/** What one delivery attempt of one webhook event came to. */
export interface DeliveryReport {
  eventId: string;
  type: string;
  outcome: EventOutcome;
  /** Null when nothing was sent (no URL for the event's mode, or another dispatcher took it first). */
  attempt: AttemptRecord | null;
  /** The delivery (`wd_…`), absent when nothing was queued (no URL for the mode); its endpoint, absent also once removed. */
  deliveryId?: string;
  endpointId?: string;
}

/** Sends an event again now, outside its retry schedule (the webhook dispatcher, src/webhooks/dispatcher.ts). */
export interface EventRedelivery {
  /** Back in the queue with a fresh schedule, and one attempt now; null for an unknown id. */
  redeliver(eventId: string): Promise<DeliveryReport | null>;
}

/**
 * What a refund must spend and where to (issue 26): the payment's address and the receipts that counted
 * towards it, the customer's destination and the amount the customer should receive. The refund rails
 * (src/rails) turn it into instructions the merchant signs in its own wallet; no key is on the server.
 */
export interface RefundSpendRequest {
  coin: string;
  network: string;
  isLive: boolean;
  walletId: number;
  /**
   * The key's index of the payment address; null for a payment to a deposit forwarder (refunded from the
   * settlement address) or to a TRON own address (refunded from it): the account networks' rails do not need it.
   */
  derivationIndex: number | null;
  paymentAddress: string;
  /** The payment's counted receipts. */
  receipts: { key: string; txHash: string | null; amount: string }[];
  destination: string;
  /** Crypto decimal string the customer should receive. */
  amount: string;
  /** sat/vB chosen by the merchant (UTXO coins). */
  feeRate: string | null;
  deductNetworkFee: boolean;
  /**
   * The merchant's settlement address when the payment was made to a deposit forwarder (issue 40): a
   * forwarder can only send there, so the refund is paid from it (after the flush, or by the merchant
   * directly); null or absent: from the payment address.
   */
  settlementAddress?: string | null;
}

/** An EVM refund's unsigned transaction; amounts in decimal strings (wei, gas units, wei per gas). */
export type EvmRefundTransaction = {
  from: string;
  to: string;
  value: string;
  data: string;
  chainId: number;
  gas: string;
  /** 2 (EIP-1559) when the chain's blocks have a base fee and the max fees are given; else 0 (legacy, gasPrice). */
  type: 0 | 2;
  /** The node's eth_gasPrice, for a legacy transaction (a wallet or chain without EIP-1559); null when no node answered. */
  gasPrice: string | null;
  /** EIP-1559: 2 × the latest base fee + the tip; null on a chain without base fee. */
  maxFeePerGas: string | null;
  maxPriorityFeePerGas: string | null;
};

export interface RefundInstructions {
  /** Payment URI for the destination and amount (BIP 21 / EIP-681 / TRON). */
  uri: string;
  /** Base64 BIP 174, BTC/LTC. */
  psbt: string | null;
  /** Crypto, estimated or exact. */
  networkFee: string | null;
  /** After a deducted fee. */
  amountToCustomer: string;
  evmTransaction: EvmRefundTransaction | null;
  gasNeeded: { coin: string; amount: string } | null;
  /** What the merchant must add to its wallet setting for a signable PSBT. */
  keyOriginMissing: string | null;
}

/** Builds a refund's unsigned transaction and URI (the refund rails, src/rails). */
export interface RefundPayments {
  instructions(request: RefundSpendRequest): Promise<RefundInstructions>;
}

// The settlement context's ports (consolidations, sweep quotes, forwarders) live in ports/settlement.ts.
export * from "./ports/settlement.ts";
