// Receive addresses derived from account keys, and validation of addresses typed by people
// (refund addresses). The rules are summarised at the top of networks.ts.
import { hash } from "node:crypto";
import type { HDKey } from "@scure/bip32";
import { bech32, bech32m, createBase58check } from "@scure/base";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { childPublicKey } from "./child-keys.ts";
import type { Network, UtxoNetwork } from "./networks.ts";

const base58check = createBase58check(sha256);

/** Receive addresses live on the external chain: <account>/0/<index>. */
export const RECEIVE_CHAIN = 0;
/** Non-hardened indexes only: public derivation cannot go past 2^31 - 1. */
export const MAX_ADDRESS_INDEX = 0x7fffffff;

/** The external chain node (<account>/0), the parent of every receive address. */
export function receiveChainOf(account: HDKey): HDKey {
  return account.deriveChild(RECEIVE_CHAIN);
}

/** The address at `index` below the external chain node `chain`. */
export function deriveReceiveAddress(network: Network, chain: HDKey, index: number): string {
  if (network.family === "utxo") return p2wpkhAddress(network.bech32Hrp, hash160(receivePublicKey(chain, index, true)));
  return evmAddressOfUncompressed(receivePublicKey(chain, index, false));
}

/**
 * The SEC1 public key at `index` below the external chain node `chain` (TRON's addresses hash it
 * as EVM's do): BIP32's public child derivation, in child-keys.ts.
 */
export function receivePublicKey(chain: HDKey, index: number, compressed: boolean): Uint8Array {
  if (!Number.isSafeInteger(index) || index < 0 || index > MAX_ADDRESS_INDEX) {
    throw new RangeError(`address index must be an integer from 0 to ${MAX_ADDRESS_INDEX}, got ${index}`);
  }
  return childPublicKey(chain, index, compressed);
}

/** RIPEMD-160 of SHA-256, natively (OpenSSL), one-shot: a third of the pure-JS hashes' time, and no Hash objects. */
function hash160(bytes: Uint8Array): Uint8Array {
  return hash("ripemd160", hash("sha256", bytes, "buffer"), "buffer");
}

/** Native SegWit v0 address of a 20-byte public key hash. */
export function p2wpkhAddress(hrp: string, pubKeyHash: Uint8Array): string {
  if (pubKeyHash.length !== 20) throw new Error("P2WPKH needs a 20-byte key hash");
  return bech32.encode(hrp, [0, ...bech32.toWords(pubKeyHash)]);
}

/** EIP-55 address of a secp256k1 public key (compressed or not). */
export function evmAddressOf(publicKey: Uint8Array): string {
  return evmAddressOfUncompressed(secp256k1.Point.fromBytes(publicKey).toBytes(false));
}

/** EIP-55 address of an uncompressed public key (04, x, y) known to be valid. */
function evmAddressOfUncompressed(uncompressed: Uint8Array): string {
  const hash = keccak_256(uncompressed.subarray(1));
  return toChecksumAddress(bytesToHex(hash.subarray(12)));
}

/** EIP-55 mixed-case checksum of 40 hex digits (any case, with or without 0x). */
export function toChecksumAddress(hex: string): string {
  const lower = hex.replace(/^0x/i, "").toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(lower)) throw new Error("an EVM address is 40 hex digits");
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  let out = "0x";
  for (const [i, c] of [...lower].entries()) {
    out += parseInt(hash.charAt(i), 16) >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/** Longest address worth decoding: bech32 is at most 90 characters, base58 ones 35. */
const MAX_ADDRESS_LENGTH = 90;

/**
 * Whether `address` is a spendable-to address of `network`: bech32 v0 (20- or 32-byte program),
 * bech32m v1 (32-byte taproot), or base58check P2PKH/P2SH with the network's version bytes.
 */
export function isValidUtxoAddress(network: UtxoNetwork, address: string): boolean {
  if (typeof address !== "string" || address.length === 0 || address.length > MAX_ADDRESS_LENGTH) return false;
  if (address.toLowerCase().startsWith(`${network.bech32Hrp}1`)) return isValidSegwit(network.bech32Hrp, address);
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return false;
  }
  if (payload.length !== 21) return false;
  const [version] = payload;
  return version !== undefined && (network.p2pkhVersions.includes(version) || network.p2shVersions.includes(version));
}

function isValidSegwit(hrp: string, address: string): boolean {
  // A string can be valid under at most one of the two checksums (BIP350).
  let encoding: "bech32" | "bech32m" = "bech32";
  let decoded = bech32.decodeUnsafe(address);
  if (!decoded) {
    encoding = "bech32m";
    decoded = bech32m.decodeUnsafe(address);
  }
  if (!decoded || decoded.prefix !== hrp) return false;
  const [version, ...data] = decoded.words;
  if (version === undefined) return false;
  const program = bech32.fromWordsUnsafe(data);
  if (!program) return false;
  if (version === 0) return encoding === "bech32" && (program.length === 20 || program.length === 32);
  // v1 is taproot. v2–16 are well-formed by BIP350, but coins sent there are anyone-can-spend
  // until a soft fork gives them meaning, so a refund must not go there.
  if (version === 1) return encoding === "bech32m" && program.length === 32;
  return false;
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** 0x + 40 hex digits, all-lower or all-upper case, or mixed case matching EIP-55. */
export function isWellFormedEvmAddress(address: string): boolean {
  if (typeof address !== "string" || !EVM_ADDRESS.test(address)) return false;
  const body = address.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return toChecksumAddress(body) === address;
}
