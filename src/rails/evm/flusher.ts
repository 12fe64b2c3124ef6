// The ForwarderRails port on EVM JSON-RPC (issue 40; docs/settlement.md, Flushes): forwarder addresses
// (forwarders.ts), the checks a settlement address and a factory pass on the node, and the fee
// payer's flush: encoded, estimated, signed here (signing.ts) and sent raw. The signed transaction
// and its hash are handed back before anything is sent, so the core records them first; a retry
// sends the same bytes (one nonce: mined once at most) and reads the receipt.
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { errors, PaygateError } from "../../core/errors.ts";
import type { CryptoCurrency } from "../../core/money/currencies.ts";
import { CHAINS, coinsOn, EVM_CHAINS, isEvmNetwork, isNetworkSlug, type NetworkSlug } from "../../core/networks.ts";
import type {
  FlushBlockRequest,
  FlushBlockStatus,
  FlushChainStatus,
  FlushPrepareRequest,
  FlushStatusRequest,
  ForwarderRails,
  PreparedFlush,
} from "../../core/ports.ts";
import type { ChainWatchers } from "../chains/index.ts";
import type { EvmRpcClient } from "../chains/evm-rpc.ts";
import { fromBaseUnits, toBaseUnits } from "../refunds/units.ts";
import { toChecksumAddress } from "../wallets/addresses.ts";
import { buildCoinNetworkTable, type NetworkOptions } from "../wallets/networks.ts";
import { type EvmNetworkSlug, FORWARDER_VARIABLES, type ForwarderConfig } from "./config.ts";
import { encodeFlush, factoryRuntimeCode, flushOutcomes, forwarderAddress, paymentSalt, type ReceiptLog } from "./forwarders.ts";
import { addressOfPrivateKey, signEip1559 } from "./signing.ts";

const COIN_DECIMALS = 18;
/** What a settlement address is given to take 1 wei in the check: the forwarder's own limit (Forwarders.sol, COIN_CALL_GAS). */
const RECEIVE_GAS = 100_000n;
/** The check's sender: any address without code, given a balance by a state override for the call. */
const PROBE_SENDER = "0x000000000000000000000000000000000000f10A";
/** Over eth_estimateGas: the contracts fail a flush outright rather than skip forwarders for want of gas, so a margin is safe. */
const GAS_MARGIN_PERCENT = 120n;
const DEFAULT_PRIORITY_FEE = 1_000_000_000n;

interface Token {
  coin: string;
  contract: string;
  decimals: number;
}

export interface ForwarderRailsOptions extends NetworkOptions {
  config: ForwarderConfig;
  /** Confirmations after which a block is final on that network (the watcher's PAYGATE_FINALITY_*); else the network's default. */
  finality?: (network: EvmNetworkSlug) => number;
  chains: Pick<ChainWatchers, "clientOf" | "nodeVariable">;
}

const isEvmSlug = (network: string): network is EvmNetworkSlug => isNetworkSlug(network) && isEvmNetwork(network);
const modeOf = (isLive: boolean) => (isLive ? "live" : "test");
const quantity = (value: unknown, what: string): bigint => {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]+$/.test(value)) throw new Error(`${what} answered ${JSON.stringify(value)}, not a quantity`);
  return BigInt(value);
};
const hex = (n: bigint) => `0x${n.toString(16)}`;

export class EvmForwarderRails implements ForwarderRails {
  private readonly genuineFactories = new Set<string>();

  constructor(private readonly options: ForwarderRailsOptions) {}

  factory(network: string, isLive: boolean): { ok: true; factory: string } | { ok: false; variable: string } {
    if (!isEvmSlug(network)) return { ok: false, variable: "a forwarder factory (none exists for this network)" };
    const factory = this.options.config.factories[network][modeOf(isLive)];
    const variable = FORWARDER_VARIABLES[network].factory[modeOf(isLive)] as string;
    return factory === undefined ? { ok: false, variable } : { ok: true, factory: toChecksumAddress(factory) };
  }

  feePayer(network: string, isLive: boolean): { ok: true; address: string } | { ok: false; variable: string } {
    const key = this.keyOf(network, isLive);
    if (key.ok) return { ok: true, address: addressOfPrivateKey(hexToBytes(key.key)) };
    return key;
  }

  forwarder(factory: string, destination: string, transactionId: string): { salt: string; address: string } {
    const salt = paymentSalt(transactionId);
    return { salt, address: forwarderAddress(factory, { destination, salt }) };
  }

  async checkDestination(
    network: string,
    isLive: boolean,
    destination: string,
  ): Promise<{ ok: true; address: string } | { ok: false; problem: string }> {
    const factory = this.factory(network, isLive);
    if (!factory.ok) throw errors.forwardersNotConfigured(network, factory.variable);
    const address = toChecksumAddress(destination);
    if (/^0x0{40}$/i.test(address)) return { ok: false, problem: "cannot be the zero address: money sent there is lost" };
    if (address.toLowerCase() === factory.factory.toLowerCase()) return { ok: false, problem: "cannot be the forwarder factory itself" };
    const { client, node } = this.clientOf(network, isLive);
    await this.checkFactory(client, node, network, isLive, factory.factory);
    const coin = CHAINS[network as NetworkSlug].feeCoin;
    try {
      const call = { from: PROBE_SENDER, to: address, value: "0x1", gas: hex(RECEIVE_GAS) };
      await client.call("eth_call", [call, "latest", { [PROBE_SENDER]: { balance: "0xde0b6b3a7640000" } }]);
      return { ok: true, address };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/revert|out of gas|invalid opcode/i.test(message))
        return {
          ok: false,
          problem: `does not accept ${coin}: sending it 1 wei fails on the node (${message.replace(/^.*failed: /, "")}); forwarders could never pay it`,
        };
      throw errors.forwarderNodeUnavailable(node, message);
    }
  }

  async prepareFlush(request: FlushPrepareRequest): Promise<PreparedFlush> {
    const key = this.keyOf(request.network, request.isLive);
    if (!key.ok) throw errors.forwardersNotConfigured(request.network, key.variable);
    const { client, node } = this.clientOf(request.network, request.isLive);
    const feePayer = addressOfPrivateKey(hexToBytes(key.key));
    const data = encodeFlush(
      request.deposits,
      this.tokensOf(request.network, request.isLive).map((t) => t.contract),
    );
    const coin = CHAINS[request.network as NetworkSlug].feeCoin;
    try {
      await this.checkFactory(client, node, request.network, request.isLive, request.factory);
      const ask = async (method: string, params: unknown[]) => quantity(await client.call(method, params), method);
      const chainId = await ask("eth_chainId", []);
      const nonce = await ask("eth_getTransactionCount", [feePayer, "pending"]);
      const estimate = await ask("eth_estimateGas", [{ from: feePayer, to: request.factory, data }]);
      const gas = (estimate * GAS_MARGIN_PERCENT) / 100n;
      const block = (await client.call("eth_getBlockByNumber", ["latest", false])) as { baseFeePerGas?: string } | null;
      const baseFee = block?.baseFeePerGas === undefined ? 0n : quantity(block.baseFeePerGas, "baseFeePerGas");
      const priority = await ask("eth_maxPriorityFeePerGas", []).catch(() => DEFAULT_PRIORITY_FEE);
      const maxFee = baseFee * 2n + priority;
      const balance = await ask("eth_getBalance", [feePayer, "pending"]);
      const needed = gas * maxFee;
      if (balance < needed)
        throw errors.feePayerTooLow(feePayer, `${fromBaseUnits(balance, COIN_DECIMALS)} ${coin}`, `${fromBaseUnits(needed, COIN_DECIMALS)} ${coin}`);
      const rawTx = signEip1559(
        { chainId, nonce, maxPriorityFeePerGas: priority, maxFeePerGas: maxFee, gas, to: request.factory, value: 0n, data },
        hexToBytes(key.key),
      );
      return { feePayer, nonce, rawTx, txHash: `0x${bytesToHex(keccak_256(hexToBytes(rawTx.slice(2))))}` };
    } catch (error) {
      if (error instanceof PaygateError) throw error;
      throw errors.forwarderNodeUnavailable(node, error instanceof Error ? error.message : String(error));
    }
  }

  async broadcast(network: string, isLive: boolean, rawTx: string): Promise<void> {
    const { client } = this.clientOf(network, isLive);
    try {
      await client.call("eth_sendRawTransaction", [rawTx]);
    } catch (error) {
      // Already in the node's pool, or its nonce already used (mined, or replaced): the receipt will say.
      if (/already known|known transaction|nonce too low|already imported/i.test(error instanceof Error ? error.message : "")) return;
      throw error;
    }
  }

  async flushStatus(request: FlushStatusRequest): Promise<FlushChainStatus> {
    const { client } = this.clientOf(request.network, request.isLive);
    type Receipt = { status?: string; gasUsed: string; effectiveGasPrice?: string; blockNumber: string; blockHash: string; logs: ReceiptLog[] };
    const receiptOf = async () => (await client.call("eth_getTransactionReceipt", [request.txHash])) as Receipt | null;
    let receipt = await receiptOf();
    if (receipt === null) {
      const used = quantity(await client.call("eth_getTransactionCount", [request.feePayer, "latest"]), "eth_getTransactionCount");
      if (used <= request.nonce) return { kind: "pending" };
      // The nonce moved on: the flush was mined between the two reads, or another transaction took its
      // nonce. The receipt, read again now that the block is there, tells which.
      receipt = await receiptOf();
      if (receipt === null) return { kind: "replaced" };
    }
    const gasUsed = quantity(receipt.gasUsed, "gasUsed");
    const price = receipt.effectiveGasPrice === undefined ? 0n : quantity(receipt.effectiveGasPrice, "effectiveGasPrice");
    const byForwarder = new Map(
      request.deposits.map((d) => [forwarderAddress(request.factory, { destination: d.destination, salt: d.salt }).toLowerCase(), d.transactionId]),
    );
    const tokens = new Map(this.tokensOf(request.network, request.isLive).map((t) => [t.contract.toLowerCase(), t]));
    const coin = CHAINS[request.network as NetworkSlug].feeCoin;
    const moved = new Map<string, { coin: string; amount: string }[]>();
    for (const outcome of flushOutcomes(request.factory, request.deposits, receipt.logs)) {
      if (outcome.kind !== "forwarded") continue;
      const transactionId = byForwarder.get(outcome.forwarder.toLowerCase());
      if (transactionId === undefined) continue;
      const token = outcome.token === null ? null : tokens.get(outcome.token.toLowerCase());
      const entry =
        outcome.token === null
          ? { coin, amount: fromBaseUnits(outcome.amount, COIN_DECIMALS) }
          : token
            ? { coin: token.coin, amount: fromBaseUnits(outcome.amount, token.decimals) }
            : { coin: outcome.token, amount: outcome.amount.toString() };
      moved.set(transactionId, [...(moved.get(transactionId) ?? []), entry]);
    }
    return {
      kind: "mined",
      succeeded: receipt.status === "0x1",
      gasUsed,
      fee: fromBaseUnits(gasUsed * price, COIN_DECIMALS),
      moved,
      blockNumber: quantity(receipt.blockNumber, "blockNumber"),
      blockHash: receipt.blockHash.toLowerCase(),
    };
  }

  async flushBlock(request: FlushBlockRequest): Promise<FlushBlockStatus> {
    const { client } = this.clientOf(request.network, request.isLive);
    const tip = quantity(await client.call("eth_blockNumber", []), "eth_blockNumber");
    if (!isEvmSlug(request.network)) throw new Error(`${request.network} takes no forwarders`);
    const depth = BigInt(this.options.finality?.(request.network) ?? EVM_CHAINS[request.network].evm.finalityDepth);
    const finalAt = (block: bigint) => tip - block + 1n >= depth;
    const receipt = (await client.call("eth_getTransactionReceipt", [request.txHash])) as { blockNumber: string; blockHash: string } | null;
    if (receipt !== null) {
      const number = quantity(receipt.blockNumber, "blockNumber");
      const hash = receipt.blockHash.toLowerCase();
      if (hash === request.blockHash.toLowerCase()) return { kind: "kept", final: finalAt(number) };
      return { kind: "moved", blockNumber: number, blockHash: hash, final: finalAt(number) };
    }
    // No receipt: gone only when its block is no longer the chain's at that height (else a node's lag: wait).
    const block = (await client.call("eth_getBlockByNumber", [hex(request.blockNumber), false])) as { hash?: string } | null;
    if (block?.hash?.toLowerCase() === request.blockHash.toLowerCase()) return { kind: "kept", final: false };
    return { kind: "dropped" };
  }

  async feePayerBalance(network: string, isLive: boolean): Promise<{ address: string; balance: string; low: boolean } | null> {
    const payer = this.feePayer(network, isLive);
    if (!payer.ok) return null;
    const { client } = this.clientOf(network, isLive);
    const balance = quantity(await client.call("eth_getBalance", [payer.address, "latest"]), "eth_getBalance");
    return {
      address: payer.address,
      balance: fromBaseUnits(balance, COIN_DECIMALS),
      low: balance < toBaseUnits(this.options.config.lowBalance, COIN_DECIMALS),
    };
  }

  private keyOf(network: string, isLive: boolean): { ok: true; key: string } | { ok: false; variable: string } {
    if (!isEvmSlug(network)) return { ok: false, variable: "a fee payer key (none exists for this network)" };
    const key = this.options.config.feePayerKeys[network][modeOf(isLive)];
    return key === undefined ? { ok: false, variable: FORWARDER_VARIABLES[network].feePayer[modeOf(isLive)] as string } : { ok: true, key };
  }

  /** The network's node: the one its fee coin is watched on, else its first coin's (Base's ETH and Polygon's POL are paid on no row there). */
  private clientOf(network: string, isLive: boolean): { client: EvmRpcClient; node: string } {
    if (!isNetworkSlug(network)) throw new Error(`${network} is no EVM network`);
    const coins = coinsOn(network);
    const currency: CryptoCurrency | undefined = coins.find((c) => c.slug === CHAINS[network].feeCoin) ?? coins[0];
    if (currency === undefined) throw new Error(`${network} is no EVM network`);
    const entry = this.options.chains.clientOf(currency, isLive, network);
    const node = `The ${network} ${modeOf(isLive)} node (${this.options.chains.nodeVariable(currency, isLive, network)})`;
    if (entry?.kind !== "evm") throw errors.forwarderNodeUnavailable(node, "no node is configured");
    return { client: entry.client, node };
  }

  /** The configured factory must run paygate's code, immutables included: else no address under it is safe. */
  private async checkFactory(client: EvmRpcClient, node: string, network: string, isLive: boolean, factory: string): Promise<void> {
    const key = `${network}:${modeOf(isLive)}:${factory.toLowerCase()}`;
    if (this.genuineFactories.has(key)) return;
    let code: unknown;
    try {
      code = await client.call("eth_getCode", [factory, "latest"]);
    } catch (error) {
      throw errors.forwarderNodeUnavailable(node, error instanceof Error ? error.message : String(error));
    }
    const variable = isEvmSlug(network) ? (FORWARDER_VARIABLES[network].factory[modeOf(isLive)] as string) : network;
    if (typeof code !== "string" || code.toLowerCase() !== factoryRuntimeCode(factory).toLowerCase())
      throw errors.forwarderFactoryInvalid(
        variable,
        code === "0x"
          ? `no contract at ${factory}`
          : `the code at ${factory} is not paygate's ForwarderFactory (src/rails/evm/contracts/Forwarders.json)`,
      );
    this.genuineFactories.add(key);
  }

  private tokensOf(network: string, isLive: boolean): Token[] {
    const out: Token[] = [];
    for (const entry of buildCoinNetworkTable(this.options).values()) {
      if (entry.network !== network || entry.family !== "evm") continue;
      const side = isLive ? entry.live : entry.test;
      if (side.family === "evm" && side.token)
        out.push({ coin: entry.slug, contract: toChecksumAddress(side.token.contract), decimals: side.token.decimals });
    }
    return out;
  }
}
