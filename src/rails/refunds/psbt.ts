// A refund of BTC or LTC as an unsigned PSBT (BIP 174, version 0) that the merchant signs in its own
// wallet (docs/refunds.md, Paying a refund): the inputs are the outputs the payment sent to the
// address paygate handed out, one output pays the customer, and the change (if any) goes back to the
// merchant's wallet on its internal chain at the payment's index. Each input and the change carry
// their key's origin (master fingerprint, full path), which is how Sparrow, Electrum and hardware
// wallets find the key that signs and recognise the change as their own. Serialised by
// @scure/btc-signer (the author of @scure/bip32 and @noble, already used here).
import { Transaction } from "@scure/btc-signer";
import { base64, bech32, bech32m, createBase58check, hex } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import { createHash } from "node:crypto";
import type { HDKey } from "@scure/bip32";
import type { UtxoNetwork } from "../wallets/networks.ts";
import type { KeyOrigin } from "../../core/merchants/key-origin.ts";

const base58check = createBase58check(sha256);

/** Bitcoin Core's dust relay fee (and Litecoin Core's): 3 sat/vB. */
const DUST_RELAY_SAT_PER_VB = 3n;
/** Weight of a transaction's version, counts and lock time (4 + 1 + 1 + 4 bytes) and the segwit marker and flag. */
const OVERHEAD_WEIGHT = 10 * 4 + 2;
/**
 * Weight of a P2WPKH input: outpoint, empty scriptSig and sequence (41 bytes) ×4, and its witness
 * (item count, a 73-byte signature at most, a 33-byte key): a fee never short for a longer signature.
 */
const P2WPKH_INPUT_WEIGHT = 41 * 4 + (1 + 1 + 73 + 1 + 33);
/** RBF: the merchant can bump the fee if the rate chosen was too low (BIP 125). */
const SEQUENCE_RBF = 0xfffffffd;

/** One output the payment sent to the handed-out address. */
export interface PaidOutput {
  txid: string;
  vout: number;
  /** satoshis. */
  value: bigint;
  /** The transaction that made it, raw (hex): hardware wallets ask for it (non_witness_utxo). */
  rawTransaction?: string | undefined;
}

export interface RefundPsbtRequest {
  network: UtxoNetwork;
  /** The merchant's account key (depth 3). */
  account: HDKey;
  /** Its origin; null: the PSBT has no key origins (keyOriginMissing tells the merchant). */
  keyOrigin: KeyOrigin | null;
  /** The index of the payment's address on the receive chain (0/index); change goes to 1/index. */
  derivationIndex: number;
  outputs: readonly PaidOutput[];
  destination: string;
  /** satoshis the refund takes from the merchant. */
  amount: bigint;
  /** sat/vB (a decimal string, e.g. "2.5"). */
  feeRate: string;
  deductNetworkFee: boolean;
}

export type RefundPsbtResult =
  | { ok: true; psbt: string; fee: bigint; toCustomer: bigint; change: bigint }
  | { ok: false; problem: "dust"; toCustomer: bigint; fee: bigint; dust: bigint }
  | { ok: false; problem: "not_covered"; total: bigint };

/**
 * The refund's PSBT with its fee (vsize × fee rate). The fee comes out of the customer's amount when
 * `deductNetworkFee`, or when the payment's outputs cannot pay both (the refund spends everything);
 * a change below the dust limit is left to the fee. Refused when the customer would get dust or less.
 */
export function buildRefundPsbt(request: RefundPsbtRequest): RefundPsbtResult {
  const total = request.outputs.reduce((sum, o) => sum + o.value, 0n);
  if (request.outputs.length === 0 || request.amount <= 0n || request.amount > total) return { ok: false, problem: "not_covered", total };
  const destinationScript = outputScript(request.network, request.destination);
  const receive = request.account.deriveChild(0).deriveChild(request.derivationIndex);
  const changeKey = request.account.deriveChild(1).deriveChild(request.derivationIndex);
  const inputScript = p2wpkhScript(publicKey(receive));
  const changeScript = p2wpkhScript(publicKey(changeKey));

  const rate = request.feeRate;
  const inputsWeight = request.outputs.length * P2WPKH_INPUT_WEIGHT;
  const withoutChange = feeFor(OVERHEAD_WEIGHT + inputsWeight + outputWeight(destinationScript), rate);
  const withChange = feeFor(OVERHEAD_WEIGHT + inputsWeight + outputWeight(destinationScript) + outputWeight(changeScript), rate);
  const changeDust = dustOf(changeScript);

  let toCustomer: bigint;
  let change: bigint;
  if (request.deductNetworkFee) {
    change = total - request.amount;
    if (change >= changeDust) toCustomer = request.amount - withChange;
    else {
      toCustomer = request.amount - withoutChange;
      change = 0n;
    }
  } else {
    change = total - request.amount - withChange;
    if (change >= changeDust) toCustomer = request.amount;
    else {
      change = 0n;
      // Without change the rest is the fee; short of it, the refund spends everything and the customer pays the fee.
      toCustomer = total - request.amount >= withoutChange ? request.amount : total - withoutChange;
    }
  }
  const fee = total - toCustomer - change;
  const dust = dustOf(destinationScript);
  if (toCustomer < dust) return { ok: false, problem: "dust", toCustomer, fee, dust };

  const tx = new Transaction({ version: 2, lockTime: 0, allowUnknownOutputs: true });
  for (const output of request.outputs) addPaidInput(tx, { ...request, receive, inputScript }, output);
  tx.addOutput({ script: destinationScript, amount: toCustomer });
  if (change > 0n) {
    tx.addOutput({
      script: changeScript,
      amount: change,
      ...(request.keyOrigin === null ? {} : { bip32Derivation: [[publicKey(changeKey), derivation(request.keyOrigin, 1, request.derivationIndex)]] }),
    });
  }
  return { ok: true, psbt: base64.encode(tx.toPSBT(0)), fee, toCustomer, change };
}

/** The key that received a paid output: the payment's address at 0/index of its wallet's account. */
interface ReceivingKey {
  keyOrigin: KeyOrigin | null;
  derivationIndex: number;
  receive: HDKey;
  inputScript: Uint8Array;
}

/** One paid output as an input with its witness UTXO, its whole transaction when known and its key's origin (RBF signalled). */
function addPaidInput(tx: Transaction, key: ReceivingKey, output: PaidOutput): void {
  tx.addInput({
    txid: output.txid,
    index: output.vout,
    sequence: SEQUENCE_RBF,
    witnessUtxo: { script: key.inputScript, amount: output.value },
    ...(output.rawTransaction === undefined ? {} : { nonWitnessUtxo: hex.decode(output.rawTransaction) }),
    ...(key.keyOrigin === null ? {} : { bip32Derivation: [[publicKey(key.receive), derivation(key.keyOrigin, 0, key.derivationIndex)]] }),
  });
}

/** Outputs of many payments, each with the account and index of the address that received it. */
export interface ConsolidatedOutput extends PaidOutput {
  account: HDKey;
  keyOrigin: KeyOrigin | null;
  derivationIndex: number;
}

export type ConsolidationPsbtResult =
  | { ok: true; psbt: string; txid: string; total: bigint; fee: bigint; amount: bigint }
  | { ok: false; problem: "dust"; total: bigint; fee: bigint; dust: bigint };

/**
 * A consolidation (issue 40; docs/settlement.md): every output to one destination of the merchant's,
 * no change, the fee (vsize × rate) out of the total, as a refund's inputs are built. Refused when the
 * destination would get less than its dust limit. `txid`: the unsigned transaction's id, which signing
 * keeps (P2WPKH inputs put their signatures in the witness).
 */
export function buildConsolidationPsbt(request: {
  network: UtxoNetwork;
  outputs: readonly ConsolidatedOutput[];
  destination: string;
  feeRate: string;
}): ConsolidationPsbtResult {
  const total = request.outputs.reduce((sum, o) => sum + o.value, 0n);
  const destinationScript = outputScript(request.network, request.destination);
  const fee = feeFor(OVERHEAD_WEIGHT + request.outputs.length * P2WPKH_INPUT_WEIGHT + outputWeight(destinationScript), request.feeRate);
  const dust = dustOf(destinationScript);
  if (total - fee < dust) return { ok: false, problem: "dust", total, fee, dust };
  const tx = new Transaction({ version: 2, lockTime: 0, allowUnknownOutputs: true });
  for (const output of request.outputs) {
    const receive = output.account.deriveChild(0).deriveChild(output.derivationIndex);
    addPaidInput(tx, { ...output, receive, inputScript: p2wpkhScript(publicKey(receive)) }, output);
  }
  tx.addOutput({ script: destinationScript, amount: total - fee });
  return { ok: true, psbt: base64.encode(tx.toPSBT(0)), txid: tx.id, total, fee, amount: total - fee };
}

/** ceil(vsize × rate), vsize = ceil(weight / 4); the rate is a decimal of sat/vB, computed in thousandths exactly. */
export function feeFor(weight: number, rate: string): bigint {
  const vsize = BigInt(Math.ceil(weight / 4));
  const [whole = "0", fraction = ""] = rate.split(".");
  const milli = BigInt(whole) * 1000n + BigInt(`${fraction}000`.slice(0, 3));
  return (vsize * milli + 999n) / 1000n;
}

/** Bitcoin Core's dust limit of an output: what spending it costs at the dust relay fee (policy.cpp GetDustThreshold). */
export function dustOf(script: Uint8Array): bigint {
  const size = BigInt(8 + 1 + script.length);
  const witness =
    script.length >= 4 &&
    (script[0] === 0x00 || (script[0] !== undefined && script[0] >= 0x51 && script[0] <= 0x60)) &&
    script[1] === script.length - 2;
  return (size + (witness ? 67n : 148n)) * DUST_RELAY_SAT_PER_VB;
}

function outputWeight(script: Uint8Array): number {
  return (8 + 1 + script.length) * 4;
}

function derivation(origin: KeyOrigin, chain: number, index: number): { fingerprint: number; path: number[] } {
  return { fingerprint: Number.parseInt(origin.fingerprint, 16), path: [...origin.path, chain, index] };
}

function publicKey(node: HDKey): Uint8Array {
  if (!node.publicKey) throw new Error("derived key has no public key");
  return node.publicKey;
}

function hash160(bytes: Uint8Array): Uint8Array {
  return createHash("ripemd160").update(createHash("sha256").update(bytes).digest()).digest();
}

function p2wpkhScript(pubkey: Uint8Array): Uint8Array {
  return Uint8Array.from([0x00, 0x14, ...hash160(pubkey)]);
}

/** The output script an address of `network` pays to (the address is one isValidUtxoAddress accepts). */
export function outputScript(network: UtxoNetwork, address: string): Uint8Array {
  if (address.toLowerCase().startsWith(`${network.bech32Hrp}1`)) {
    const decoded = bech32.decodeUnsafe(address) ?? bech32m.decodeUnsafe(address);
    if (!decoded || decoded.prefix !== network.bech32Hrp) throw new Error(`${address} is not a segwit address of ${network.name}`);
    const [version = 0, ...words] = decoded.words;
    const program = bech32.fromWords(words);
    return Uint8Array.from([version === 0 ? 0x00 : 0x50 + version, program.length, ...program]);
  }
  const payload = base58check.decode(address);
  const [version] = payload;
  const hash = payload.subarray(1);
  if (payload.length !== 21 || version === undefined) throw new Error(`${address} is not an address of ${network.name}`);
  if (network.p2pkhVersions.includes(version)) return Uint8Array.from([0x76, 0xa9, 0x14, ...hash, 0x88, 0xac]);
  if (network.p2shVersions.includes(version)) return Uint8Array.from([0xa9, 0x14, ...hash, 0x87]);
  throw new Error(`${address} is not an address of ${network.name}`);
}
