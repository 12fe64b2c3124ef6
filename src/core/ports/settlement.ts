// The settlement context's ports (issue 40): what the chain side does for consolidations, sweep plans
// and deposit forwarders; src/rails implements them. src/core/ports.ts re-exports them.
import type { CryptoCurrency } from "../money/currencies.ts";
import type { NetworkSlug } from "../networks.ts";

/**
 * What a consolidation spends and where to (issue 40; docs/settlement.md, Consolidating BTC and LTC).
 * The consolidation rails (src/rails/settlement) build the unsigned PSBT and ask an own node which
 * outputs are still unspent.
 */
/** One output to spend, with the key that receives it (the wallet and its index on the receive chain). */
export interface ConsolidationSpend {
  walletId: number;
  derivationIndex: number;
  outpoint: string;
  amount: string;
}

export interface ConsolidationBuildRequest {
  coin: string;
  network: string;
  isLive: boolean;
  outputs: readonly ConsolidationSpend[];
  destination: string;
  /** sat/vB. */
  feeRate: string;
}

export type ConsolidationBuilt =
  | {
      ok: true;
      psbt: string;
      /** The transaction's id: segwit inputs keep it from the unsigned transaction to the signed one. */
      txHash: string;
      /** The outputs spent, in the PSBT's order; those the node says are spent already are left out. */
      spent: string[];
      total: string;
      networkFee: string;
      amountToReceive: string;
      /** What the merchant must add to its wallet setting for a signable PSBT; null when every key has its origin. */
      keyOriginMissing: string | null;
    }
  | { ok: false; problem: "all_spent" }
  | { ok: false; problem: "dust"; total: string; networkFee: string; dust: string };

/** Builds a consolidation's unsigned PSBT (src/rails/settlement); rejects with a 503 PaygateError when the node cannot be asked. */
export interface ConsolidationRails {
  build(request: ConsolidationBuildRequest): Promise<ConsolidationBuilt>;
}

/**
 * Sweep plans (issue 40; docs/settlement.md, Sweeping fresh addresses): what one per-payment address
 * holds and what moving it to `destination` costs, read from the network's node (src/rails/settlement/
 * sweep-quotes.ts). Amounts in base units, exact. Rejects with a 503 PaygateError naming the network's
 * node when it cannot be asked.
 */
export interface SweepRails {
  quote(request: SweepQuoteRequest): Promise<SweepQuote>;
  /**
   * A sweep's or a top-up's transaction as the network's node tells it (EVM networks), for recording
   * a sweep the merchant sent (docs/settlement.md, Recording sweeps). Rejects with a 503 PaygateError
   * naming the network's node when it cannot be asked.
   */
  transaction(request: SweepTransactionRequest): Promise<SweepChainTransaction>;
}

export interface SweepTransactionRequest {
  network: NetworkSlug;
  isLive: boolean;
  /** As the network writes it: 0x + 64 hex digits on EVM networks, the 64 digits alone on TRON. */
  txHash: string;
}

/** A configured token's Transfer log in the transaction's receipt. */
export interface SweepTokenTransfer {
  coin: string;
  token: string;
  decimals: number;
  from: string;
  to: string;
  units: bigint;
}

export type SweepChainTransaction =
  | { state: "unknown" }
  | { state: "pending"; from: string }
  | {
      state: "mined";
      succeeded: boolean;
      /** EIP-55. */
      from: string;
      to: string | null;
      /** The network's coin sent with it, in base units; `plain`: no call data (a plain coin transfer). */
      value: bigint;
      plain: boolean;
      transfers: SweepTokenTransfer[];
      /** gas used × effective gas price, in the fee coin's base units. */
      fee: bigint;
      feeDecimals: number;
      blockNumber: bigint;
      blockHash: string;
      minedAt: Date;
    };

export interface SweepQuoteRequest {
  currency: CryptoCurrency;
  isLive: boolean;
  network: NetworkSlug;
  address: string;
  destination: string;
}

export interface SweepQuote {
  /** The coin paid to the address, in its base units; its decimals and token contract (null: the chain's own coin). */
  held: bigint;
  decimals: number;
  token: string | null;
  /** The network's fee coin the address holds (for a chain's own coin, `held` again), in its base units. */
  feeCoinHeld: bigint;
  feeCoinDecimals: number;
  /** What the address's own transfer of `held` costs, in the fee coin's base units. */
  transferFee: bigint;
  /** What the fee wallet's top-up transaction costs it (EVM: 21,000 gas; TRON: the activation of an address that holds no TRX). */
  topUpFee: bigint;
  /** EVM: the transfer's gas and the price per gas. TRON: energy and sun per energy, bandwidth, activation (sun). */
  gas: bigint | null;
  gasPrice: bigint | null;
  bandwidth: bigint | null;
  activation: bigint | null;
  /** Where the figures come from: the node's estimate, or TRON's documented figures when the node could not say (`note` says why). */
  source: "node" | "documented";
  note: string | null;
}

/**
 * Deposit forwarders on EVM networks (issue 40; docs/settlement.md): addresses computed off chain,
 * checks on the node, and the fee payer's flush transactions (src/rails/evm/flusher.ts). `network`
 * is an EVM network's slug. A failure to reach the node rejects with a 503 PaygateError naming it.
 */
export interface ForwarderRails {
  /** The network's factory in that mode, or the variable that would set it. */
  factory(network: string, isLive: boolean): { ok: true; factory: string } | { ok: false; variable: string };
  /** The fee payer's address, or the variable that would set its key. */
  feePayer(network: string, isLive: boolean): { ok: true; address: string } | { ok: false; variable: string };
  /** The payment's forwarder: its salt from the transaction's id, its address under `factory`. */
  forwarder(factory: string, destination: string, transactionId: string): { salt: string; address: string };
  /**
   * Whether `destination` may be a settlement address: an address of the network (EIP-55 returned),
   * neither zero nor the factory, that takes the coin (a call with 1 wei on the node does not revert);
   * the factory's code is checked to be paygate's first.
   */
  checkDestination(network: string, isLive: boolean, destination: string): Promise<{ ok: true; address: string } | { ok: false; problem: string }>;
  /** Signs the factory's flush of `deposits` (not sent); refuses with fee_payer_too_low when the payer cannot pay it. */
  prepareFlush(request: FlushPrepareRequest): Promise<PreparedFlush>;
  /** Sends a signed flush again or for the first time; a node that already has it is no failure. */
  broadcast(network: string, isLive: boolean, rawTx: string): Promise<void>;
  /** What the chain says of a sent flush: mined (with what moved), replaced (its nonce used by another), or pending. */
  flushStatus(request: FlushStatusRequest): Promise<FlushChainStatus>;
  /** Whether a confirmed flush's block is still on the chain, and final (docs/settlement.md, Reorganisations). */
  flushBlock(request: FlushBlockRequest): Promise<FlushBlockStatus>;
  /** The fee payer's balance in the coin (decimal string) and whether it is below the operator's threshold; null without a fee payer. */
  feePayerBalance(network: string, isLive: boolean): Promise<{ address: string; balance: string; low: boolean } | null>;
}

export interface FlushDeposit {
  transactionId: string;
  destination: string;
  salt: string;
}

export interface FlushPrepareRequest {
  network: string;
  isLive: boolean;
  factory: string;
  deposits: readonly FlushDeposit[];
}

export interface PreparedFlush {
  feePayer: string;
  nonce: bigint;
  txHash: string;
  rawTx: string;
}

export interface FlushStatusRequest {
  network: string;
  isLive: boolean;
  factory: string;
  txHash: string;
  feePayer: string;
  nonce: bigint;
  deposits: readonly FlushDeposit[];
}

export type FlushChainStatus =
  | { kind: "pending" }
  | { kind: "replaced" }
  // `fee` in the coin, exact; `moved` by transaction id: what its forwarder sent to its destination.
  | {
      kind: "mined";
      succeeded: boolean;
      gasUsed: bigint;
      fee: string;
      moved: ReadonlyMap<string, { coin: string; amount: string }[]>;
      blockNumber: bigint;
      blockHash: string;
    };

/** A confirmed flush's recorded block, to read again until it is final. */
export interface FlushBlockRequest {
  network: string;
  isLive: boolean;
  txHash: string;
  blockNumber: bigint;
  blockHash: string;
}

/**
 * Where a confirmed flush is now: still in its block (final once past the network's finality depth),
 * mined in another block (a reorganisation that mined it again), or gone with its block (no receipt,
 * and another block at its height): then it must be sent again.
 */
export type FlushBlockStatus =
  | { kind: "kept"; final: boolean }
  | { kind: "moved"; blockNumber: bigint; blockHash: string; final: boolean }
  | { kind: "dropped" };
