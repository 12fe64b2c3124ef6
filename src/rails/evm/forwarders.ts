// Deposit forwarders off chain (issue 40; contracts in contracts/Forwarders.sol): the address a
// payment's forwarder has before it exists, computed exactly as the chain does, the factory's
// flush call, and what a flush's logs say moved. Nothing here holds a key or talks to a node: the
// settlement adapter (docs/settlement.md, "How forwarders plug in") gives it a factory, the merchant's
// settlement address and a payment's salt, and sends what it encodes with the fee payer's key.
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { toChecksumAddress } from "../wallets/addresses.ts";
import artifacts from "./contracts/Forwarders.json" with { type: "json" };

/** The factory's creation bytecode (it creates its implementation in its constructor). */
export const FACTORY_BYTECODE: string = artifacts.contracts.ForwarderFactory.bytecode;

/** EIP-1167 creation code around the implementation's 20 bytes: what the factory hands CREATE2. */
const CLONE_PREFIX = "3d602d80600a3d3981f3363d3d373d3d3d363d73";
const CLONE_SUFFIX = "5af43d82803e903d91602b57fd5bf3";

/** keccak256 of an event's signature: the first topic of its logs. */
export const FORWARDED_TOPIC = topicOf("Forwarded(address,address,uint256)");
export const FORWARD_FAILED_TOPIC = topicOf("ForwardFailed(address,address,uint256)");
export const FLUSH_FAILED_TOPIC = topicOf("FlushFailed(address)");
/** flush((address,bytes32)[],address[]). */
const FLUSH_SELECTOR = bytesToHex(keccak_256(utf8ToBytes("flush((address,bytes32)[],address[])")).subarray(0, 4));

/** One payment's forwarder: the merchant's settlement address and the payment's salt (32 bytes, 0x hex). */
export interface Deposit {
  destination: string;
  salt: string;
}

/** A payment's salt: keccak256 of a reference unique per payment (paygate uses the transaction's id). */
export function paymentSalt(reference: string): string {
  if (reference === "") throw new Error("a payment's salt needs a reference");
  return `0x${bytesToHex(keccak_256(utf8ToBytes(reference)))}`;
}

/** The implementation the factory creates in its constructor: CREATE from the factory at nonce 1 (EIP-161). */
export function implementationOf(factory: string): string {
  // RLP([factory, 1]): a 22-byte list of a 20-byte string and the single byte 0x01.
  const encoded = Uint8Array.from([0xd6, 0x94, ...addressBytes(factory), 0x01]);
  return toChecksumAddress(bytesToHex(keccak_256(encoded).subarray(12)));
}

/** The CREATE2 address (EIP-1014): the last 20 bytes of keccak256(0xff ++ deployer ++ salt ++ keccak256(initCode)). */
export function create2Address(deployer: string, salt: string, initCodeHash: Uint8Array): string {
  const preimage = Uint8Array.from([0xff, ...addressBytes(deployer), ...word(salt), ...initCodeHash]);
  return toChecksumAddress(bytesToHex(keccak_256(preimage).subarray(12)));
}

/** keccak256 of a forwarder's creation code for this implementation (the factory's cloneCodeHash). */
export function cloneCodeHash(implementation: string): Uint8Array {
  return keccak_256(hexToBytes(`${CLONE_PREFIX}${bytesToHex(addressBytes(implementation))}${CLONE_SUFFIX}`));
}

/** The salt CREATE2 is given: keccak256(abi.encode(destination, salt)), so the destination is part of the address. */
export function boundSalt(deposit: Deposit): string {
  return `0x${bytesToHex(keccak_256(Uint8Array.from([...addressWord(deposit.destination), ...word(deposit.salt)])))}`;
}

/**
 * Where the customer pays: the forwarder of `deposit` under `factory`, whether it exists yet or not.
 * Refuses a destination the factory would never flush to (the zero address, the factory itself).
 */
export function forwarderAddress(factory: string, deposit: Deposit): string {
  const destination = deposit.destination.toLowerCase();
  if (/^0x0{40}$/.test(destination)) throw new Error("a forwarder's destination cannot be the zero address");
  if (destination === factory.toLowerCase()) throw new Error("a forwarder's destination cannot be its factory");
  return create2Address(factory, boundSalt(deposit), cloneCodeHash(implementationOf(factory)));
}

/**
 * The runtime code a genuine factory at `factory` has (eth_getCode answers it): Forwarders.json's with
 * its immutables filled in. A configured factory whose code differs is not paygate's, and no payment
 * address may be computed under it.
 */
export function factoryRuntimeCode(factory: string): string {
  const implementation = implementationOf(factory);
  const { deployedBytecode, immutables } = artifacts.contracts.ForwarderFactory;
  return withImmutables(deployedBytecode, [
    [immutables.implementation, addressWord(implementation)],
    [immutables.cloneCodeHash, cloneCodeHash(implementation)],
  ]);
}

/** The runtime code of the implementation a genuine factory at `factory` created (its immutable: the factory). */
export function implementationRuntimeCode(factory: string): string {
  const { deployedBytecode, immutables } = artifacts.contracts.DepositForwarder;
  return withImmutables(deployedBytecode, [[immutables.factory, addressWord(factory)]]);
}

function withImmutables(code: string, values: [{ start: number; length: number }[], Uint8Array][]): string {
  const bytes = hexToBytes(code.slice(2));
  for (const [ranges, value] of values) for (const { start } of ranges) bytes.set(value, start);
  return `0x${bytesToHex(bytes)}`;
}

/** Calldata of factory.flush(deposits, tokens): creates what does not exist, moves `tokens` and the coin. */
export function encodeFlush(deposits: readonly Deposit[], tokens: readonly string[]): string {
  const depositsAt = 64;
  const tokensAt = depositsAt + 32 + deposits.length * 64;
  const words = [
    uintWord(BigInt(depositsAt)),
    uintWord(BigInt(tokensAt)),
    uintWord(BigInt(deposits.length)),
    ...deposits.flatMap((d) => [addressWord(d.destination), word(d.salt)]),
    uintWord(BigInt(tokens.length)),
    ...tokens.map(addressWord),
  ];
  return `0x${FLUSH_SELECTOR}${words.map(bytesToHex).join("")}`;
}

/** A log as eth_getTransactionReceipt gives it. */
export interface ReceiptLog {
  address: string;
  topics: string[];
  data: string;
}

/** What one forwarder did in a flush: `token` null for the network's coin; amounts in base units. */
export type FlushOutcome =
  | { kind: "forwarded"; forwarder: string; token: string | null; destination: string; amount: bigint }
  | { kind: "forward_failed"; forwarder: string; token: string | null; destination: string; amount: bigint }
  | { kind: "flush_failed"; forwarder: string };

/**
 * What the flush of `deposits` did, from its receipt's logs in order. Only the logs of those deposits'
 * forwarders and of the factory count: a token can log anything, a `Forwarded` of its own too.
 */
export function flushOutcomes(factory: string, deposits: readonly Deposit[], logs: readonly ReceiptLog[]): FlushOutcome[] {
  const factoryLower = factory.toLowerCase();
  // Computed without forwarderAddress's refusals: a flush of a refused destination is read as the chain saw it.
  const codeHash = cloneCodeHash(implementationOf(factory));
  const forwarders = new Set(deposits.map((d) => create2Address(factory, boundSalt(d), codeHash).toLowerCase()));
  const out: FlushOutcome[] = [];
  for (const log of logs) {
    const [topic, first, second] = log.topics.map((t) => t.toLowerCase());
    const fromForwarder = forwarders.has(log.address.toLowerCase());
    if ((topic === FORWARDED_TOPIC || topic === FORWARD_FAILED_TOPIC) && fromForwarder && first !== undefined && second !== undefined) {
      const token = topicAddress(first);
      out.push({
        kind: topic === FORWARDED_TOPIC ? "forwarded" : "forward_failed",
        forwarder: toChecksumAddress(log.address),
        token: /^0x0{40}$/.test(token) ? null : toChecksumAddress(token),
        destination: toChecksumAddress(topicAddress(second)),
        amount: BigInt(log.data),
      });
    } else if (topic === FLUSH_FAILED_TOPIC && first !== undefined && log.address.toLowerCase() === factoryLower) {
      out.push({ kind: "flush_failed", forwarder: toChecksumAddress(topicAddress(first)) });
    }
  }
  return out;
}

function topicOf(signature: string): string {
  return `0x${bytesToHex(keccak_256(utf8ToBytes(signature)))}`;
}

function topicAddress(topic: string): string {
  return `0x${topic.slice(-40)}`;
}

function addressBytes(address: string): Uint8Array {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error(`not an EVM address: ${address}`);
  return hexToBytes(address.slice(2));
}

/** An address as a 32-byte ABI word. */
function addressWord(address: string): Uint8Array {
  return Uint8Array.from([...new Uint8Array(12), ...addressBytes(address)]);
}

/** A bytes32 given as 0x and 64 hex digits. */
function word(hex: string): Uint8Array {
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`not 32 bytes of hex: ${hex}`);
  return hexToBytes(hex.slice(2));
}

function uintWord(n: bigint): Uint8Array {
  return hexToBytes(n.toString(16).padStart(64, "0"));
}
