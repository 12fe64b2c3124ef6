// The forwarders' contracts on an anvil (test/rails/evm/forwarders-anvil.test.ts, bench/settle.ts):
// deploys the factory and the test tokens from their committed bytecode, and a fee payer: a fresh
// key funded with the coin only, whose transactions are signed here (EIP-1559) and sent raw, as
// paygate's will be. Calls are ABI-encoded by hand, as the rails do.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { addressOfPrivateKey, signEip1559 } from "../../src/rails/evm/signing.ts";
import { toChecksumAddress } from "../../src/rails/wallets/addresses.ts";
import type { Anvil } from "./anvil.ts";

interface Artifact {
  contracts: Record<string, { abi: unknown[]; bytecode: string; deployedBytecode: string }>;
}

const contractsDir = new URL("../../src/rails/evm/contracts/", import.meta.url);
const read = (file: string) => JSON.parse(readFileSync(new URL(file, contractsDir), "utf8")) as Artifact;
export const FORWARDERS = read("Forwarders.json");
export const TEST_TOKENS = read("TestTokens.json");

export interface Receipt {
  transactionHash: string;
  status: string;
  gasUsed: string;
  blockNumber: string;
  blockHash: string;
  contractAddress: string | null;
  logs: { address: string; topics: string[]; data: string }[];
}

/** A mined transaction's receipt, waited for: anvil answers a send with the hash, then mines its block. */
export async function receiptOf(anvil: Anvil, hash: string): Promise<Receipt> {
  for (let waited = 0; waited < 10_000; waited += 10) {
    const receipt = (await anvil.send("eth_getTransactionReceipt", [hash])) as Receipt | null;
    if (receipt !== null) return receipt;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${hash} was not mined within 10 s`);
}

/** Creates a contract from a dev account; its address. */
export async function deploy(anvil: Anvil, bytecode: string): Promise<string> {
  const hash = String(await anvil.send("eth_sendTransaction", [{ from: anvil.accounts[0], data: bytecode, gas: "0x1c9c380" }]));
  const receipt = await receiptOf(anvil, hash);
  if (receipt.status !== "0x1" || receipt.contractAddress === null) throw new Error(`deploy failed: ${hash}`);
  return toChecksumAddress(receipt.contractAddress);
}

/** Deploys one of TestTokens.sol's contracts. */
export function deployTest(anvil: Anvil, name: string): Promise<string> {
  const contract = TEST_TOKENS.contracts[name];
  if (!contract) throw new Error(`no test contract ${name}`);
  return deploy(anvil, contract.bytecode);
}

export function deployFactory(anvil: Anvil): Promise<string> {
  return deploy(anvil, (FORWARDERS.contracts.ForwarderFactory as { bytecode: string }).bytecode);
}

/** Calldata of `signature` with static arguments (addresses and integers as words). */
export function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).subarray(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}

/** A read-only call's single word. */
export async function callWord(anvil: Anvil, to: string, data: string): Promise<bigint> {
  return BigInt(String(await anvil.send("eth_call", [{ to, data }, "latest"])));
}

export const balanceOf = (anvil: Anvil, token: string, holder: string) => callWord(anvil, token, abiCall("balanceOf(address)", holder));
export const coinBalance = async (anvil: Anvil, holder: string) => BigInt(String(await anvil.send("eth_getBalance", [holder, "latest"])));
export const codeAt = async (anvil: Anvil, address: string) => String(await anvil.send("eth_getCode", [address, "latest"]));

/** Mints test tokens (anyone may) from a dev account. */
export async function mint(anvil: Anvil, token: string, to: string, amount: bigint): Promise<void> {
  await anvil.sendTransaction({ to: token, data: abiCall("mint(address,uint256)", to, amount), gas: 200_000n });
}

/** A key of its own that signs its transactions: the fee payer, or a payment's fresh address. */
export interface Signer {
  address: string;
  /** Signs and sends; the receipt once mined (a reverted transaction too: check `status`). */
  send(tx: { to: string | null; data?: string; value?: bigint; gas?: bigint }): Promise<SentReceipt>;
}

/** A signed transaction's receipt and its size: what a rollup's L1 data fee is charged on. */
export interface SentReceipt extends Receipt {
  bytes: number;
}

/** Gas price of every signed transaction: anvil's first base fee is 1 gwei and falls; 2 gwei always covers it. */
const MAX_FEE = 2_000_000_000n;

export function signerOf(anvil: Anvil, privateKey: Uint8Array = randomBytes(32)): Signer {
  const address = addressOfPrivateKey(privateKey);
  return {
    address,
    send: async ({ to, data = "0x", value = 0n, gas }) => {
      const nonce = BigInt(String(await anvil.send("eth_getTransactionCount", [address, "pending"])));
      const quantity = (n: bigint) => `0x${n.toString(16)}`;
      const limit = gas ?? BigInt(String(await anvil.send("eth_estimateGas", [{ from: address, to, data, value: quantity(value) }])));
      const raw = signEip1559(
        { chainId: BigInt(anvil.chainId), nonce, maxPriorityFeePerGas: 0n, maxFeePerGas: MAX_FEE, gas: limit, to, value, data },
        privateKey,
      );
      const receipt = await receiptOf(anvil, String(await anvil.send("eth_sendRawTransaction", [raw])));
      return { ...receipt, bytes: (raw.length - 2) / 2 };
    },
  };
}

/** A fresh key funded with `coin` wei from a dev account: holds nothing else. */
export async function fundedSigner(anvil: Anvil, coin: bigint): Promise<Signer> {
  const signer = signerOf(anvil);
  await anvil.sendTransaction({ to: signer.address, value: coin });
  return signer;
}
