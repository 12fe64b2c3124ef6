// The sweep tool's TRON side (docs/settlement.md, Sweeping fresh addresses): for one address of the
// plan, a TRX top-up from the fee wallet when the address holds less than its USDT transfer may burn,
// the TRC-20 transfer to the destination, and the TRX left after it. Every transaction is built and
// signed here (tron-transactions.ts) and sent through the HTTP API of the merchant's own node or
// provider (java-tron's /wallet/… endpoints, addresses in base58 with `visible`); each is waited for.
// A transfer burns TRX for the energy and bandwidth it uses, up to its fee limit: the top-up covers the
// plan's fee with a margin, and what is left goes on with the TRX left over.
import type { SweepAddressView } from "../../src/core/settlement/sweep-view.ts";
import { TRON_ACTIVATION_SUN, TRON_SUN_PER_BANDWIDTH } from "../../src/rails/settlement/sweep-quotes.ts";
import { tronAddressToHex } from "../../src/rails/wallets/tron.ts";
import type { AddressOutcome, SentTransaction } from "./evm.ts";
import { outcomeOf, RpcError } from "./evm.ts";
import { type ReferenceBlock, type SignedTronTransaction, signTronTransfer, type Trc20Transfer, type TrxTransfer } from "./tron-transactions.ts";

const INFO_POLL_MS = 500;
const INFO_WAIT_MS = 120_000;
/** A node refuses a transaction that expires more than 24 hours after its reference block; a minute is plenty to be mined. */
const EXPIRATION_MS = 60_000n;
/** Over the plan's fee: the fee limit and the top-up. What is not burned goes on with the TRX left over. */
const FEE_MARGIN_PERCENT = 120n;
/** What java-tron adds to a transaction's size when it counts its bandwidth (MAX_RESULT_SIZE_IN_TX). */
const BANDWIDTH_OVERHEAD_BYTES = 64n;

export interface TronKey {
  address: string;
  privateKey: Uint8Array;
}

/** A TRON node's HTTP API (java-tron's FullNode: /wallet/…), addresses in base58 (`visible`). */
export class TronHttp {
  constructor(private readonly url: string) {}

  async call<T>(path: string, body: Record<string, unknown>): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.url.replace(/\/$/, "")}/wallet/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    } catch (error) {
      throw new RpcError(`the TRON node's URL cannot be reached (${error instanceof Error ? error.message : String(error)})`);
    }
    const answer = (await response.json().catch(() => null)) as (T & { Error?: string }) | null;
    if (!response.ok || answer === null) throw new RpcError(`wallet/${path}: the node answered HTTP ${response.status} without JSON`);
    if (typeof answer.Error === "string") throw new RpcError(`wallet/${path}: ${answer.Error}`);
    return answer;
  }

  async trxBalance(address: string): Promise<bigint> {
    const account = await this.call<{ balance?: number }>("getaccount", { address, visible: true });
    return BigInt(account.balance ?? 0);
  }

  /** Whether the account exists: the node answers `{}` for one that never received TRX. */
  async isActivated(address: string): Promise<boolean> {
    const account = await this.call<{ address?: string }>("getaccount", { address, visible: true });
    return account.address !== undefined;
  }

  async tokenBalance(token: string, holder: string): Promise<bigint> {
    const answer = await this.call<{ constant_result?: string[]; result?: { result?: boolean; message?: string } }>("triggerconstantcontract", {
      owner_address: holder,
      contract_address: token,
      function_selector: "balanceOf(address)",
      parameter: tronAddressToHex(holder).slice(2).padStart(64, "0"),
      visible: true,
    });
    const word = answer.constant_result?.[0];
    if (answer.result?.result !== true || word === undefined || !/^[0-9a-fA-F]{1,64}$/.test(word))
      throw new RpcError(`wallet/triggerconstantcontract: ${token}'s balanceOf gave no answer (${answer.result?.message ?? "no message"})`);
    return BigInt(`0x${word}`);
  }

  async referenceBlock(): Promise<{ block: ReferenceBlock; timestamp: bigint }> {
    const now = await this.call<{ blockID?: string; block_header?: { raw_data?: { number?: number; timestamp?: number } } }>("getnowblock", {});
    const raw = now.block_header?.raw_data;
    if (now.blockID === undefined || raw?.number === undefined || raw.timestamp === undefined)
      throw new RpcError("wallet/getnowblock: the node gave no block id, number or time");
    return { block: { number: BigInt(raw.number), id: now.blockID }, timestamp: BigInt(raw.timestamp) };
  }

  /** The bandwidth an account can still use without burning TRX today. */
  async freeBandwidth(address: string): Promise<bigint> {
    const r = await this.call<{ freeNetLimit?: number; freeNetUsed?: number; NetLimit?: number; NetUsed?: number }>("getaccountresource", {
      address,
      visible: true,
    });
    const free = BigInt((r.freeNetLimit ?? 0) - (r.freeNetUsed ?? 0));
    const staked = BigInt((r.NetLimit ?? 0) - (r.NetUsed ?? 0));
    return (free > 0n ? free : 0n) + (staked > 0n ? staked : 0n);
  }
}

interface TransactionInfo {
  id?: string;
  fee?: number;
  blockNumber?: number;
  result?: string;
  resMessage?: string;
  receipt?: { energy_usage_total?: number; net_usage?: number; net_fee?: number; energy_fee?: number; result?: string };
}

/** Signs, broadcasts and waits until the transaction is in a block; what it cost (sun) and, for a contract, the energy it used. */
async function send(node: TronHttp, transfer: TrxTransfer | Trc20Transfer, key: TronKey): Promise<SentTransaction> {
  const signed = sign(transfer, await node.referenceBlock(), key);
  const sent = await node.call<{ result?: boolean; code?: string; message?: string }>("broadcasthex", { transaction: signed.hex });
  if (sent.result !== true)
    throw new RpcError(`the node refused transaction ${signed.txId} from ${key.address}: ${sent.code ?? "no code"} ${readMessage(sent.message)}`);
  const until = Date.now() + INFO_WAIT_MS;
  for (;;) {
    const info = await node.call<TransactionInfo>("gettransactioninfobyid", { value: signed.txId });
    if (info.id !== undefined && info.blockNumber !== undefined) {
      const outcome = info.receipt?.result;
      if (info.result === "FAILED" || (outcome !== undefined && outcome !== "SUCCESS"))
        throw new RpcError(`transaction ${signed.txId} from ${key.address} failed: ${outcome ?? info.result} ${readMessage(info.resMessage)}`);
      return {
        tx_hash: signed.txId,
        gas_used: String(info.receipt?.energy_usage_total ?? 0),
        fee_units: String(info.fee ?? 0),
        amount_units: transfer.amount.toString(),
      };
    }
    if (Date.now() > until)
      throw new RpcError(
        `transaction ${signed.txId} from ${key.address} was not in a block within ${INFO_WAIT_MS / 1000} s; run the tool again later`,
      );
    await new Promise((resolve) => setTimeout(resolve, INFO_POLL_MS));
  }
}

function sign(transfer: TrxTransfer | Trc20Transfer, at: { block: ReferenceBlock; timestamp: bigint }, key: TronKey): SignedTronTransaction {
  return signTronTransfer(transfer, at.block, { timestamp: at.timestamp, expiration: at.timestamp + EXPIRATION_MS }, key.privateKey);
}

/** The node's messages are hex of UTF-8 text. */
function readMessage(message: string | undefined): string {
  if (message === undefined) return "";
  return /^[0-9a-fA-F]+$/.test(message) && message.length % 2 === 0 ? Buffer.from(message, "hex").toString("utf8") : message;
}

/** Sweeps one TRC-20 address of the plan; an address that holds nothing now is left (a re-run is safe). */
export async function sweepTronAddress(
  node: TronHttp,
  entry: SweepAddressView,
  key: TronKey,
  feeWallet: TronKey,
  destination: string,
): Promise<AddressOutcome> {
  const outcome = outcomeOf(entry);
  if (entry.token_contract === null) return { ...outcome, state: "skipped", reason: "TRX itself is no coin paygate takes on TRON" };
  const units = await node.tokenBalance(entry.token_contract, entry.address);
  if (units === 0n) return { ...outcome, state: "already_empty", reason: `holds no ${entry.coin} now` };
  const feeLimit = (BigInt(entry.fee.transfer_units) * FEE_MARGIN_PERCENT + 99n) / 100n;
  const held = await node.trxBalance(entry.address);
  if (held < feeLimit)
    outcome.top_up = await send(node, { kind: "trx", from: feeWallet.address, to: entry.address, amount: feeLimit - held }, feeWallet);
  outcome.transfer = await send(
    node,
    { kind: "trc20", from: entry.address, token: entry.token_contract, to: destination, amount: units, feeLimit },
    key,
  );
  // What the margin left: on to the destination, less the bandwidth it burns when the free bandwidth is spent.
  const left = await node.trxBalance(entry.address);
  if (left > 0n) {
    // Its size signed as it will be (an amount no smaller than the one sent): the bandwidth it needs.
    const bytes = BigInt(sign({ kind: "trx", from: entry.address, to: destination, amount: left }, await node.referenceBlock(), key).hex.length / 2);
    const needed = bytes + BANDWIDTH_OVERHEAD_BYTES;
    const bandwidth = (await node.freeBandwidth(entry.address)) >= needed ? 0n : needed * TRON_SUN_PER_BANDWIDTH;
    // A TRC-20 transfer does not activate its receiver: the first TRX sent to the destination pays that.
    const fee = bandwidth + ((await node.isActivated(destination)) ? 0n : TRON_ACTIVATION_SUN);
    if (left > fee) outcome.coin_left_over = await send(node, { kind: "trx", from: entry.address, to: destination, amount: left - fee }, key);
  }
  return outcome;
}
