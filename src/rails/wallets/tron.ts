// TRON: receive addresses from the merchant's account key, TRON addresses typed by people (refund
// addresses), the two forms of an address, and what the checkout's QR code holds.
//
// Decisions:
// - Keys. TRON is secp256k1 under BIP44 coin type 195: the merchant gives the extended public key
//   of the account m/44'/195'/0' (an xpub; in test mode a tpub too, as TRON's test networks use the
//   same addresses), and receive address i is <account>/0/i, the path TronLink, Trust Wallet, Ledger's
//   TRON app and TronWeb use. The key check is the other coins' (extended-keys.ts): depth 3,
//   hardened, public only. createTestWallet: the tpub of m/44'/195'/0' of a random seed.
// - Addresses. Keccak-256 of the uncompressed public key (without its 0x04 byte), the last 20 bytes,
//   prefixed with 0x41, base58check (double SHA-256): 34 characters starting with T. The same 20
//   bytes are the address in TRON's Ethereum-compatible JSON-RPC and in the TVM's logs (0x + 40 hex);
//   TRON's HTTP API writes them 41 + 40 hex. Mainnet, Nile and Shasta share the one format.
// - Refund addresses: the base58check form only (a hex form is refused with a message saying so),
//   0x41 prefix, 21 bytes; the burn address (0x41 and twenty zero bytes) and the token contract
//   itself are refused, as whatever is sent there is lost.
// - Payment URI: the plain address. TRON has no payment-URI standard (no TIP defines one): the
//   `tron:ADDRESS?amount=` links some services make differ in the amount's unit and name no token,
//   so a wallet that reads one may offer to send TRX instead of USDT; TronLink, Trust Wallet and the
//   exchanges' apps all read a plain address from a QR code. The amount is shown beside the code.
import type { HDKey } from "@scure/bip32";
import { createBase58check } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import type { Decimal } from "decimal.js";
import { LRUCache } from "lru-cache";
import type { CryptoSlug } from "../../core/money/currencies.ts";
import { CHAINS, COIN_NETWORKS } from "../../core/networks.ts";
import type { ExtendedKeyCheck } from "../../core/ports.ts";
import { receiveChainOf, receivePublicKey } from "./addresses.ts";
import { type AccountKeyCheck, type AccountKeyRules, checkAccountKey, createAccountKey, decodeBase58check } from "./extended-keys.ts";
import { assertPositive } from "./payment-uri.ts";

const base58check = createBase58check(sha256);

/** The version byte of every TRON address (mainnet and test networks alike). */
export const TRON_ADDRESS_PREFIX = 0x41;
/** BIP44 coin type of TRON (SLIP-44). */
export const TRON_COIN_TYPE = 195;
/** The account whose extended public key the merchant gives. */
export const TRON_ACCOUNT_PATH = "m/44'/195'/0'";
/** TRON's burn address: 0x41 and twenty zero bytes. */
export const TRON_BURN_ADDRESS = "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb";
/** A TRON address in base58check: 21 bytes and 4 of checksum are always 34 characters. */
const TRON_ADDRESS_LENGTH = 34;

/** The account keys TRON takes, in the form extended-keys.ts checks. */
export const TRON_KEY_RULES: AccountKeyRules = {
  slug: "TRON",
  family: "tron",
  live: { kind: "mainnet", acceptedKeys: ["xpub"] },
  test: { kind: "testnet", acceptedKeys: ["tpub", "xpub"] },
  testAccountPath: TRON_ACCOUNT_PATH,
  liveAccountPath: TRON_ACCOUNT_PATH,
};

/** The TRON address of a secp256k1 public key (compressed or not). */
export function tronAddressOf(publicKey: Uint8Array): string {
  return tronAddressOfUncompressed(secp256k1.Point.fromBytes(publicKey).toBytes(false));
}

/** The address of an uncompressed public key (04, x, y) known to be valid. */
function tronAddressOfUncompressed(uncompressed: Uint8Array): string {
  return tronAddressFromBytes(keccak_256(uncompressed.subarray(1)).subarray(12));
}

/** The base58check address of 20 address bytes. */
export function tronAddressFromBytes(bytes: Uint8Array): string {
  if (bytes.length !== 20) throw new RangeError(`a TRON address holds 20 bytes, got ${bytes.length}`);
  const payload = new Uint8Array(21);
  payload[0] = TRON_ADDRESS_PREFIX;
  payload.set(bytes, 1);
  return base58check.encode(payload);
}

/** The base58check address of a hex one: 0x + 40 hex digits (JSON-RPC, TVM logs) or 41 + 40 (TRON's HTTP API). */
export function tronAddressFromHex(hex: string): string {
  const match = /^(?:0x|41)([0-9a-fA-F]{40})$/.exec(hex);
  if (!match?.[1]) throw new RangeError(`${JSON.stringify(hex)} is not a hex TRON address (0x or 41, then 40 hex digits)`);
  return tronAddressFromBytes(hexToBytes(match[1]));
}

export type TronAddressCheck = { ok: true; hex: string } | { ok: false; reason: string };

/**
 * Reads a base58check TRON address. Never throws: a refusal says what is wrong, for a person who
 * typed or pasted it. `hex` is the 20 bytes as the JSON-RPC writes them: 0x + 40 lower-case digits.
 */
export function checkTronAddress(address: string): TronAddressCheck {
  const fail = (reason: string): TronAddressCheck => ({ ok: false, reason });
  if (typeof address !== "string" || address.length === 0) return fail("is empty");
  if (address.trim() !== address) return fail("has leading or trailing whitespace");
  if (/^(?:0x|41)[0-9a-fA-F]{40}$/.test(address)) {
    return fail("is a hex address; give the TRON address in its usual form, 34 characters starting with T");
  }
  if (address.length !== TRON_ADDRESS_LENGTH) {
    return fail(`is ${address.length} characters long; a TRON address has ${TRON_ADDRESS_LENGTH}, starting with T`);
  }
  const payload = decodeBase58check(address);
  if (payload === "alphabet") {
    return fail("has characters that are not base58 (0, O, I and l are not used); a TRON address has 34 characters starting with T");
  }
  if (payload === "checksum") return fail("has a checksum that does not match, so it was mistyped or cut short");
  if (payload.length !== 21 || payload[0] !== TRON_ADDRESS_PREFIX) {
    return fail(`is not a TRON address (a TRON address starts with T: version byte 0x41, got 0x${(payload[0] ?? 0).toString(16).padStart(2, "0")})`);
  }
  return { ok: true, hex: `0x${bytesToHex(payload.subarray(1))}` };
}

/** The 20 bytes of a base58check TRON address as 0x + 40 lower-case hex digits (JSON-RPC's form). Throws on a bad address. */
export function tronAddressToHex(address: string): string {
  const check = checkTronAddress(address);
  if (!check.ok) throw new RangeError(`${JSON.stringify(address)} ${check.reason}`);
  return check.hex;
}

/**
 * Whether `address` can take a refund of the token `contract` (base58): a well-formed TRON address
 * that is neither the burn address nor the contract itself. Says why not.
 */
export function checkTronRefundAddress(address: string, contract?: string): TronAddressCheck {
  const check = checkTronAddress(address);
  if (!check.ok) return check;
  if (address === TRON_BURN_ADDRESS) return { ok: false, reason: "is TRON's burn address: whatever is sent there is lost" };
  if (contract !== undefined && address === contract) {
    return { ok: false, reason: "is the token's contract itself: tokens sent there are lost" };
  }
  return check;
}

/**
 * Parses the merchant's TRON account key (m/44'/195'/0', xpub; in test mode tpub or xpub). Never
 * throws: a refusal carries a reason meant for the operator.
 */
export function checkTronAccountKey(isLive: boolean, extendedPublicKey: string): AccountKeyCheck {
  if (checkTronAddress(extendedPublicKey).ok) {
    // A likely mistake: the wallet shows its address more readily than its account key.
    return {
      ok: false,
      reason: `this is a TRON address, not an account key; give the extended public key of the account ${TRON_ACCOUNT_PATH} (${isLive ? "xpub" : "tpub or xpub"}), from which a fresh address is derived for each payment`,
    };
  }
  return checkAccountKey(TRON_KEY_RULES, isLive, extendedPublicKey);
}

/** The <account>/0 node of a TRON account key; throws with the reason on a bad key. */
export function tronReceiveChain(isLive: boolean, extendedPublicKey: string): HDKey {
  const check = checkTronAccountKey(isLive, extendedPublicKey);
  if (!check.ok) throw new Error(`Bad TRON extended public key: ${check.reason}`);
  return receiveChainOf(check.node);
}

/**
 * The <account>/2 node of a TRON account key: the merchant's own addresses (own-address mode, issue 40),
 * a branch the per-payment addresses (<account>/0) never reach. Throws with the reason on a bad key.
 */
export function tronOwnChain(isLive: boolean, extendedPublicKey: string): HDKey {
  const check = checkTronAccountKey(isLive, extendedPublicKey);
  if (!check.ok) throw new Error(`Bad TRON extended public key: ${check.reason}`);
  return check.node.deriveChild(OWN_ADDRESS_BRANCH);
}

/** The branch of a TRON account key whose addresses own-address mode uses (0: receive, 1: change in BIP 44). */
export const OWN_ADDRESS_BRANCH = 2;

/** Receive address `index` below the external chain node of a TRON account (<account>/0). */
export function deriveTronAddress(chain: HDKey, index: number): string {
  return tronAddressOfUncompressed(receivePublicKey(chain, index, false));
}

/** A fresh TRON account for test mode: the tpub of m/44'/195'/0' of a random seed, whose private parts are dropped. */
export function createTronTestWallet(): string {
  return createAccountKey("tpub", TRON_ACCOUNT_PATH);
}

/** What the checkout's QR code holds for a TRON payment: the plain address (see the note at the top). */
export function tronPaymentUri(address: string): string {
  const check = checkTronAddress(address);
  if (!check.ok) throw new RangeError(`${JSON.stringify(address)} ${check.reason}`);
  return address;
}

/** A TRC-20 token of the networks table: its contract (base58) per mode, and its decimals. */
export interface TronTokenRow {
  live: string;
  test: string;
  decimals: number;
}

/**
 * The TRC-20 tokens of TRON's rows in core/networks.ts, by coin, with configured contracts (by
 * `COIN:tron`) in place of the table's. Throws on a configured contract that is not a TRON address.
 */
export function tronTokenContracts(configured: TronRailsOptions["tokenContracts"] = {}): ReadonlyMap<CryptoSlug, TronTokenRow> {
  const tokens = new Map<CryptoSlug, TronTokenRow>();
  for (const row of COIN_NETWORKS) {
    if (CHAINS[row.network].family !== "tron" || row.contract === null) continue;
    const key = `${row.coin}:${row.network}`;
    const token = { live: configured[key]?.live ?? row.contract.live, test: configured[key]?.test ?? row.contract.test, decimals: row.decimals };
    for (const mode of ["live", "test"] as const) {
      const check = checkTronAddress(token[mode]);
      if (!check.ok) throw new RangeError(`tokenContracts.${key}.${mode} ${JSON.stringify(token[mode])} ${check.reason}`);
    }
    tokens.set(row.coin, token);
  }
  return tokens;
}

export interface TronRailsOptions {
  /** TRC-20 contracts (base58) by `COIN:tron` (e.g. `USDT:tron`) and mode. Defaults: core/networks.ts's rows. */
  tokenContracts?: Partial<Record<string, { live?: string | undefined; test?: string | undefined }>>;
  /** How many parsed keys (their receive-chain nodes) to keep; 0 turns the cache off. Default 1000. */
  keyCacheSize?: number;
}

/**
 * The wallet side of TRON's rows in core/networks.ts: what HdWalletRails hands to it when a coin is
 * paid on `tron`. Every method names a coin only where its token contract matters.
 */
export class TronWalletRails {
  private readonly contracts: ReadonlyMap<CryptoSlug, TronTokenRow>;
  /** `${live|test}:${key}` → the <account>/0 node, least recently used out first. */
  private readonly chains: LRUCache<string, HDKey> | null;

  constructor(options: TronRailsOptions = {}) {
    this.contracts = tronTokenContracts(options.tokenContracts);
    const size = Math.max(0, Math.floor(options.keyCacheSize ?? 1000));
    this.chains = size > 0 ? new LRUCache({ max: size }) : null;
  }

  /** Receive address `index` of the merchant's TRON account key. Throws on a bad key. */
  deriveAddress(isLive: boolean, extendedPublicKey: string, index: number): string {
    const cacheKey = `${isLive ? "live" : "test"}:${extendedPublicKey}`;
    let chain = this.chains?.get(cacheKey);
    if (chain === undefined) {
      chain = tronReceiveChain(isLive, extendedPublicKey);
      this.chains?.set(cacheKey, chain);
    }
    return deriveTronAddress(chain, index);
  }

  /** Own address `index` (<account>/2/index) of the merchant's TRON account key. Throws on a bad key. */
  ownAddress(isLive: boolean, extendedPublicKey: string, index: number): string {
    return deriveTronAddress(tronOwnChain(isLive, extendedPublicKey), index);
  }

  /** Why `address` cannot take a refund of `coin` on TRON in that mode, or null when it can. */
  refundAddressProblem(coin: CryptoSlug, isLive: boolean, address: string): string | null {
    const check = checkTronRefundAddress(address, this.contract(coin, isLive) ?? undefined);
    return check.ok ? null : check.reason;
  }

  isValidAddress(coin: CryptoSlug, isLive: boolean, address: string): boolean {
    return this.refundAddressProblem(coin, isLive, address) === null;
  }

  checkExtendedPublicKey(isLive: boolean, extendedPublicKey: string): ExtendedKeyCheck {
    const check = checkTronAccountKey(isLive, extendedPublicKey);
    return check.ok ? { ok: true } : { ok: false, reason: check.reason };
  }

  createTestWallet(): string {
    return createTronTestWallet();
  }

  /** The QR code's text: the plain address (the amount is shown beside it). A non-positive amount throws, as for the other coins. */
  paymentUri(address: string, amount: Decimal): string {
    assertPositive(amount);
    return tronPaymentUri(address);
  }

  /** The TRC-20 contract (base58) of `coin` in that mode; null for a coin TRON carries natively (none yet). */
  contract(coin: CryptoSlug, isLive: boolean): string | null {
    const contract = this.contracts.get(coin);
    if (contract === undefined) return null;
    return isLive ? contract.live : contract.test;
  }
}
