// EIP-1559 (type 2) transactions signed with a private key held here: the fee payer's, which holds
// only the network's coin and sends the factory's flush (issue 40). The forwarders make sure that
// key can send a customer's money nowhere but to the merchant. RLP as in the yellow paper, appendix B.
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { toChecksumAddress } from "../wallets/addresses.ts";

export interface Eip1559Transaction {
  chainId: bigint;
  nonce: bigint;
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
  gas: bigint;
  /** null creates a contract from `data`. */
  to: string | null;
  value: bigint;
  data: string;
}

/** The raw signed transaction (0x02 ++ RLP), ready for eth_sendRawTransaction. */
export function signEip1559(tx: Eip1559Transaction, privateKey: Uint8Array): string {
  const fields: Rlp[] = [
    quantity(tx.chainId),
    quantity(tx.nonce),
    quantity(tx.maxPriorityFeePerGas),
    quantity(tx.maxFeePerGas),
    quantity(tx.gas),
    tx.to === null ? new Uint8Array() : hexToBytes(tx.to.slice(2)),
    quantity(tx.value),
    hexToBytes(tx.data.replace(/^0x/, "")),
    [], // access list
  ];
  const digest = keccak_256(Uint8Array.from([2, ...rlp(fields)]));
  const signature = secp256k1.sign(digest, privateKey, { prehash: false, format: "recovered" });
  const signed = rlp([...fields, quantity(BigInt(signature[0] as number)), unpadded(signature.subarray(1, 33)), unpadded(signature.subarray(33))]);
  return `0x02${bytesToHex(signed)}`;
}

/** The EIP-55 address of a private key. */
export function addressOfPrivateKey(privateKey: Uint8Array): string {
  const uncompressed = secp256k1.getPublicKey(privateKey, false);
  return toChecksumAddress(bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12)));
}

type Rlp = Uint8Array | Rlp[];

function rlp(item: Rlp): Uint8Array {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && (item[0] as number) < 0x80) return item;
    return Uint8Array.from([...lengthPrefix(item.length, 0x80), ...item]);
  }
  const body = item.flatMap((x) => [...rlp(x)]);
  return Uint8Array.from([...lengthPrefix(body.length, 0xc0), ...body]);
}

function lengthPrefix(length: number, offset: number): Uint8Array {
  if (length < 56) return Uint8Array.of(offset + length);
  const bytes = quantity(BigInt(length));
  return Uint8Array.of(offset + 55 + bytes.length, ...bytes);
}

/** A scalar in big-endian bytes without leading zeros (0 is empty), as RLP wants it. */
function quantity(n: bigint): Uint8Array {
  if (n < 0n) throw new RangeError("a quantity is never negative");
  if (n === 0n) return new Uint8Array();
  const hex = n.toString(16);
  return hexToBytes(hex.length % 2 === 0 ? hex : `0${hex}`);
}

function unpadded(bytes: Uint8Array): Uint8Array {
  const first = bytes.findIndex((b) => b !== 0);
  return first === -1 ? new Uint8Array() : bytes.subarray(first);
}
