// TRON transactions built and signed on the merchant's machine, for the sweep tool (issue 40; docs/
// settlement.md, Sweeping fresh addresses): the fee wallet's TRX top-up (TransferContract) and the
// payment address's TRC-20 transfer (TriggerSmartContract). A TRON transaction is the protobuf
// `protocol.Transaction` of java-tron's Tron.proto; its id is the SHA-256 of its `raw_data` bytes, and
// each signature is secp256k1 over that id, r ‖ s ‖ v (65 bytes). Only the fields written here are
// encoded, in field-number order, as java-tron and TronWeb write them, so the id a node computes from
// the bytes is the one computed here. The node's wallet/broadcasthex takes the signed hex.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { tronAddressOf, tronAddressToHex } from "../../src/rails/wallets/tron.ts";

/** Contract.ContractType values (Tron.proto) of the two contracts the tool sends. */
const TRANSFER_CONTRACT = 1;
const TRIGGER_SMART_CONTRACT = 31;

/** The block a transaction refers to (TAPoS): a node refuses one whose block it does not have. */
export interface ReferenceBlock {
  number: bigint;
  /** The block id, 64 hex digits, as wallet/getnowblock answers `blockID`. */
  id: string;
}

export interface TronTransactionTimes {
  /** Milliseconds since the epoch. */
  timestamp: bigint;
  /** Milliseconds since the epoch; a node refuses one more than 24 hours after the reference block. */
  expiration: bigint;
}

export interface TrxTransfer {
  kind: "trx";
  /** Base58 addresses (T…). */
  from: string;
  to: string;
  /** Sun (1 TRX = 1,000,000 sun). */
  amount: bigint;
}

export interface Trc20Transfer {
  kind: "trc20";
  from: string;
  token: string;
  to: string;
  /** The token's base units. */
  amount: bigint;
  /** The most TRX (in sun) the transfer may burn for energy; the node refuses a transfer without one. */
  feeLimit: bigint;
}

export interface SignedTronTransaction {
  /** The transaction id: SHA-256 of `rawDataHex`'s bytes, 64 hex digits. */
  txId: string;
  rawDataHex: string;
  /** r ‖ s ‖ v, 130 hex digits; v is the recovery id, 0 or 1, as TronWeb writes it (java-tron adds 27 to a v below 27). */
  signature: string;
  /** The whole signed `protocol.Transaction`, for wallet/broadcasthex. */
  hex: string;
}

/** Builds `transfer`'s `raw_data` and signs it with the sender's private key. */
export function signTronTransfer(
  transfer: TrxTransfer | Trc20Transfer,
  block: ReferenceBlock,
  times: TronTransactionTimes,
  privateKey: Uint8Array,
): SignedTronTransaction {
  const raw = rawData(transfer, block, times);
  const txId = sha256(raw);
  const recovered = secp256k1.sign(txId, privateKey, { prehash: false, format: "recovered" });
  const signature = concatBytes(recovered.subarray(1), recovered.subarray(0, 1));
  return {
    txId: bytesToHex(txId),
    rawDataHex: bytesToHex(raw),
    signature: bytesToHex(signature),
    hex: bytesToHex(concatBytes(bytesField(1, raw), bytesField(2, signature))),
  };
}

/** The base58 address that signed `txId` (hex), from a signature r ‖ s ‖ v (v 0, 1, 27 or 28). */
export function tronSigner(txId: string, signature: string): string {
  const bytes = hexToBytes(signature);
  const v = bytes[64];
  if (bytes.length !== 65 || v === undefined) throw new Error(`a TRON signature is 65 bytes, not ${bytes.length}`);
  const recovery = v >= 27 ? v - 27 : v;
  const publicKey = secp256k1.recoverPublicKey(concatBytes(Uint8Array.of(recovery), bytes.subarray(0, 64)), hexToBytes(txId), { prehash: false });
  return tronAddressOf(publicKey);
}

/** `Transaction.raw`: ref_block_bytes (1), ref_block_hash (4), expiration (8), contract (11), timestamp (14), fee_limit (18). */
export function rawData(transfer: TrxTransfer | Trc20Transfer, block: ReferenceBlock, times: TronTransactionTimes): Uint8Array {
  const id = hexToBytes(block.id);
  if (id.length !== 32) throw new Error(`a block id is 32 bytes, not ${id.length}`);
  // TAPoS: the block number's bytes 6 and 7 (of 8, big-endian) and the block id's bytes 8 to 15.
  const refBlockBytes = Uint8Array.of(Number((block.number >> 8n) & 0xffn), Number(block.number & 0xffn));
  const contract =
    transfer.kind === "trx"
      ? contractField(
          TRANSFER_CONTRACT,
          "TransferContract",
          concatBytes(bytesField(1, address(transfer.from)), bytesField(2, address(transfer.to)), varintField(3, positive(transfer.amount))),
        )
      : contractField(
          TRIGGER_SMART_CONTRACT,
          "TriggerSmartContract",
          concatBytes(bytesField(1, address(transfer.from)), bytesField(2, address(transfer.token)), bytesField(4, trc20TransferData(transfer))),
        );
  return concatBytes(
    bytesField(1, refBlockBytes),
    bytesField(4, id.subarray(8, 16)),
    varintField(8, times.expiration),
    bytesField(11, contract),
    varintField(14, times.timestamp),
    transfer.kind === "trc20" ? varintField(18, positive(transfer.feeLimit)) : new Uint8Array(),
  );
}

/** `transfer(address,uint256)`'s call data: the selector, then the 20-byte address and the amount as words. */
function trc20TransferData(transfer: Trc20Transfer): Uint8Array {
  const to = address(transfer.to).subarray(1); // the EVM form: without TRON's 0x41
  return concatBytes(hexToBytes("a9059cbb"), new Uint8Array(12), to, hexToBytes(positive(transfer.amount).toString(16).padStart(64, "0")));
}

/** `Contract`: type (1) and parameter (2), a `google.protobuf.Any` of type_url (1) and value (2). */
function contractField(type: number, name: string, value: Uint8Array): Uint8Array {
  const any = concatBytes(bytesField(1, utf8ToBytes(`type.googleapis.com/protocol.${name}`)), bytesField(2, value));
  return concatBytes(varintField(1, BigInt(type)), bytesField(2, any));
}

/** A base58 address's 21 bytes (0x41 ‖ 20). */
function address(base58: string): Uint8Array {
  return concatBytes(Uint8Array.of(0x41), hexToBytes(tronAddressToHex(base58).slice(2)));
}

function positive(amount: bigint): bigint {
  if (amount <= 0n) throw new Error(`an amount must be positive, not ${amount}`);
  return amount;
}

function varint(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 63n) throw new Error(`${value} is outside int64's positive range`);
  const out: number[] = [];
  let rest = value;
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    out.push(rest === 0n ? low : low | 0x80);
  } while (rest !== 0n);
  return Uint8Array.from(out);
}

function varintField(field: number, value: bigint): Uint8Array {
  return concatBytes(varint(BigInt(field << 3)), varint(value));
}

function bytesField(field: number, bytes: Uint8Array): Uint8Array {
  return concatBytes(varint(BigInt((field << 3) | 2)), varint(BigInt(bytes.length)), bytes);
}
