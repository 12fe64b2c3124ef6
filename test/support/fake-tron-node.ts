// A TRON full node's HTTP API (java-tron's /wallet/… with `visible: true`) for the sweep tool's tests:
// no TRON node software runs here (../shared/notes/toolchain.md), so this answers the endpoints the
// tool calls as TRON's HTTP API reference documents them, and checks what a node checks before it takes
// a transaction: the protobuf it is sent, decoded here field by field (not with the tool's encoder);
// the reference block (TAPoS); the id (SHA-256 of raw_data); the signature, which must recover the
// owner; a duplicate; the owner's balance. It keeps TRX and one TRC-20 token's balances and charges as
// TRON does: energy at 100 sun (the documented 64,285 energy of a USDT transfer into a holder, 130,285
// into an empty address), refused above the fee limit (OUT_OF_ENERGY); bandwidth (the transaction's
// bytes + 64) from the 600 free daily bytes of an activated account, else 1,000 sun a byte; 1 TRX to
// activate an account a TransferContract creates. Each accepted transaction is in the next block,
// which the node reports one `gettransactioninfobyid` later (so the tool has to wait for it); then
// `gettransactionbyid` gives it, `gettransactioninfobyid` its fee, result and TRC-20 Transfer log,
// and `getblockbynum` its block, as paygate reads them to record a sweep.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { tronAddressFromHex, tronAddressOf, tronAddressToHex } from "../../src/rails/wallets/tron.ts";

const ENERGY_INTO_HOLDER = 64_285n;
const ENERGY_INTO_EMPTY = 130_285n;
const SUN_PER_ENERGY = 100n;
const SUN_PER_BYTE = 1_000n;
const FREE_BANDWIDTH = 600n;
const ACTIVATION_SUN = 1_000_000n;

type Fields = Map<number, (bigint | Uint8Array)[]>;

/** A protobuf message's fields: varints as bigint, length-delimited as bytes (the only wire types TRON's transactions use). */
function decode(bytes: Uint8Array): Fields {
  const fields: Fields = new Map();
  let at = 0;
  const varint = () => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error("truncated varint");
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  while (at < bytes.length) {
    const tag = Number(varint());
    const field = tag >> 3;
    const wire = tag & 7;
    let value: bigint | Uint8Array;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const length = Number(varint());
      value = bytes.subarray(at, at + length);
      if (value.length !== length) throw new Error("truncated field");
      at += length;
    } else throw new Error(`wire type ${wire} is not used by a TRON transaction`);
    fields.set(field, [...(fields.get(field) ?? []), value]);
  }
  return fields;
}

const one = (f: Fields, n: number) => f.get(n)?.[0];
const bytesOf = (f: Fields, n: number) => {
  const v = one(f, n);
  if (!(v instanceof Uint8Array)) throw new Error(`field ${n} is not bytes`);
  return v;
};
const numberOf = (f: Fields, n: number) => {
  const v = one(f, n) ?? 0n;
  if (typeof v !== "bigint") throw new Error(`field ${n} is not a varint`);
  return v;
};
const base58 = (address21: Uint8Array) => tronAddressFromHex(bytesToHex(address21));
const hexText = (text: string) => Buffer.from(text, "utf8").toString("hex");

interface Info {
  id: string;
  fee: number;
  blockNumber: number;
  blockTimeStamp: number;
  receipt: Record<string, number | string>;
  /** A TRC-20 call's: the contract and the Transfer log of a successful one (topics and data in hex, no 0x). */
  contract_address?: string;
  log?: { address: string; topics: string[]; data: string }[];
  /** "FAILED" when the contract did not succeed. */
  result?: string;
  /** Queries left before the node reports the transaction in a block. */
  hiddenFor: number;
}

/** A taken transaction as gettransactionbyid gives it (`visible: true`). */
interface Shown {
  txID: string;
  ret: { contractRet: string }[];
  raw_data: { contract: { parameter: { value: Record<string, unknown>; type_url: string }; type: string }[] };
}

/** keccak256("Transfer(address,uint256)"), as a log's topic 0. */
const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

export interface FakeTronNode {
  url: string;
  /** The TRC-20 token it runs (base58). */
  token: string;
  trx: Map<string, bigint>;
  tokens: Map<string, bigint>;
  /** Every transaction it took, by id, with its decoded contract type. */
  taken: Map<string, { type: number; owner: string }>;
  /** Each endpoint's calls, for a test to see what the tool asked. */
  calls: string[];
  close(): Promise<void>;
}

export async function startFakeTronNode(token: string): Promise<FakeTronNode> {
  const trx = new Map<string, bigint>();
  const tokens = new Map<string, bigint>();
  const freeUsed = new Map<string, bigint>();
  const infos = new Map<string, Info>();
  const taken = new Map<string, { type: number; owner: string }>();
  const shown = new Map<string, Shown>();
  const blockTimes = new Map<bigint, bigint>();
  const calls: string[] = [];
  let number = 50_000_000n;
  let timestamp = 1_800_000_000_000n;
  const blockId = (n: bigint) => `${n.toString(16).padStart(16, "0")}${bytesToHex(sha256(new TextEncoder().encode(`block ${n}`))).slice(16)}`;
  const activated = (address: string) => trx.has(address);

  const burn = (owner: string, bytes: bigint): bigint => {
    const used = freeUsed.get(owner) ?? 0n;
    if (activated(owner) && used + bytes <= FREE_BANDWIDTH) {
      freeUsed.set(owner, used + bytes);
      return 0n;
    }
    return bytes * SUN_PER_BYTE;
  };

  const refuse = (code: string, message: string, txid?: string) => ({ result: false, code, ...(txid ? { txid } : {}), message: hexText(message) });

  const broadcast = (hex: string) => {
    const signed = decode(hexToBytes(hex));
    const raw = bytesOf(signed, 1);
    const txid = bytesToHex(sha256(raw));
    const fields = decode(raw);
    // TAPoS: the reference block must be one of the node's.
    const refBytes = bytesToHex(bytesOf(fields, 1));
    const refHash = bytesToHex(bytesOf(fields, 4));
    const known = [...Array(10).keys()]
      .map((back) => number - BigInt(back))
      .some((n) => {
        const id = blockId(n);
        return id.slice(12, 16) === refBytes && id.slice(16, 32) === refHash;
      });
    if (!known) return refuse("TAPOS_ERROR", "Tapos check error.", txid);
    if (numberOf(fields, 8) <= timestamp) return refuse("TRANSACTION_EXPIRATION_ERROR", "Transaction expired", txid);
    if (taken.has(txid)) return refuse("DUP_TRANSACTION_ERROR", "dup transaction", txid);
    const contract = decode(bytesOf(fields, 11));
    const type = Number(numberOf(contract, 1));
    const any = decode(bytesOf(contract, 2));
    const typeUrl = new TextDecoder().decode(bytesOf(any, 1));
    const value = decode(bytesOf(any, 2));
    const owner = base58(bytesOf(value, 1));
    const signature = bytesOf(signed, 2);
    if (signature.length !== 65) return refuse("SIGERROR", "Validate signature error: signature is not 65 bytes", txid);
    const v = signature[64] ?? 0;
    let signer: string;
    try {
      const recovered = Uint8Array.of(v >= 27 ? v - 27 : v, ...signature.subarray(0, 64));
      signer = tronAddressOf(secp256k1.recoverPublicKey(recovered, sha256(raw), { prehash: false }));
    } catch {
      return refuse("SIGERROR", "Validate signature error: the signature does not recover", txid);
    }
    if (signer !== owner) return refuse("SIGERROR", `Validate signature error: ${signer} is signed by another key than ${owner}'s`, txid);
    const bytes = BigInt(hex.length / 2) + 64n;
    const balance = trx.get(owner) ?? 0n;
    let fee: bigint;
    let receipt: Record<string, number | string>;
    let json: Shown["raw_data"]["contract"][number];
    let extra: Pick<Info, "contract_address" | "log" | "result"> = {};
    if (type === 1 && typeUrl === "type.googleapis.com/protocol.TransferContract") {
      const to = base58(bytesOf(value, 2));
      const amount = numberOf(value, 3);
      const activation = activated(to) ? 0n : ACTIVATION_SUN;
      const bandwidth = burn(owner, bytes);
      fee = activation + bandwidth;
      if (balance < amount + fee) {
        return refuse("CONTRACT_VALIDATE_ERROR", "Validate TransferContract error, balance is not sufficient.", txid);
      }
      trx.set(owner, balance - amount - fee);
      trx.set(to, (trx.get(to) ?? 0n) + amount);
      receipt = bandwidth === 0n ? { net_usage: Number(bytes) } : { net_fee: Number(bandwidth) };
      json = { parameter: { value: { amount: Number(amount), owner_address: owner, to_address: to }, type_url: typeUrl }, type: "TransferContract" };
    } else if (type === 31 && typeUrl === "type.googleapis.com/protocol.TriggerSmartContract") {
      const contractAddress = base58(bytesOf(value, 2));
      const data = bytesToHex(bytesOf(value, 4));
      if (contractAddress !== token || !data.startsWith("a9059cbb") || data.length !== 8 + 128)
        return refuse("CONTRACT_VALIDATE_ERROR", "this node runs one token's transfer(address,uint256) only", txid);
      const to = tronAddressFromHex(`41${data.slice(8 + 24, 8 + 64)}`);
      const amount = BigInt(`0x${data.slice(8 + 64)}`);
      const feeLimit = numberOf(fields, 18);
      json = {
        parameter: { value: { data, owner_address: owner, contract_address: contractAddress }, type_url: typeUrl },
        type: "TriggerSmartContract",
      };
      if (feeLimit === 0n) return refuse("CONTRACT_VALIDATE_ERROR", "feeLimit must be >= 0 and <= 15000000000", txid);
      const energy = (tokens.get(to) ?? 0n) > 0n ? ENERGY_INTO_HOLDER : ENERGY_INTO_EMPTY;
      const bandwidth = burn(owner, bytes);
      const energyFee = energy * SUN_PER_ENERGY;
      const held = tokens.get(owner) ?? 0n;
      // Out of energy: the fee limit (or what the owner holds) is burned and nothing moves.
      const affordable = balance - bandwidth < feeLimit ? balance - bandwidth : feeLimit;
      if (energyFee > affordable) {
        fee = bandwidth + (affordable > 0n ? affordable : 0n);
        trx.set(owner, balance - fee);
        receipt = { energy_fee: Number(fee - bandwidth), energy_usage_total: Number(fee - bandwidth) / 100, result: "OUT_OF_ENERGY" };
      } else if (held < amount) {
        fee = bandwidth + energyFee;
        trx.set(owner, balance - fee);
        receipt = { energy_fee: Number(energyFee), energy_usage_total: Number(energy), result: "REVERT" };
      } else {
        fee = bandwidth + energyFee;
        trx.set(owner, balance - fee);
        tokens.set(owner, held - amount);
        tokens.set(to, (tokens.get(to) ?? 0n) + amount);
        receipt = { energy_fee: Number(energyFee), energy_usage_total: Number(energy), result: "SUCCESS" };
        const word = (address: string) => tronAddressToHex(address).slice(2).padStart(64, "0");
        extra = { log: [{ address: contractAddress, topics: [TRANSFER_TOPIC, word(owner), word(to)], data: amount.toString(16).padStart(64, "0") }] };
      }
      if (receipt.result !== "SUCCESS") extra = { result: "FAILED" };
      extra = { ...extra, contract_address: contractAddress };
      receipt = { ...receipt, ...(bandwidth === 0n ? { net_usage: Number(bytes) } : { net_fee: Number(bandwidth) }) };
    } else return refuse("CONTRACT_VALIDATE_ERROR", `this node does not run ${typeUrl}`, txid);
    number += 1n;
    timestamp += 3_000n;
    taken.set(txid, { type, owner });
    blockTimes.set(number, timestamp);
    shown.set(txid, { txID: txid, ret: [{ contractRet: String(receipt.result ?? "SUCCESS") }], raw_data: { contract: [json] } });
    const info: Info = {
      id: txid,
      fee: Number(fee),
      blockNumber: Number(number),
      blockTimeStamp: Number(timestamp),
      receipt,
      ...extra,
      hiddenFor: 1,
    };
    if (info.fee === 0) delete (info as Partial<Info>).fee; // protobuf's JSON leaves a zero out
    infos.set(txid, info);
    return { result: true, txid };
  };

  const answer = (path: string, body: Record<string, unknown>): unknown => {
    const address = typeof body.address === "string" ? body.address : "";
    switch (path) {
      case "getnowblock":
        return { blockID: blockId(number), block_header: { raw_data: { number: Number(number), timestamp: Number(timestamp) } } };
      case "getaccount":
        return activated(address) ? { address, ...(trx.get(address) ? { balance: Number(trx.get(address)) } : {}), create_time: 1 } : {};
      case "getaccountresource":
        return activated(address) ? { freeNetLimit: Number(FREE_BANDWIDTH), freeNetUsed: Number(freeUsed.get(address) ?? 0n) } : {};
      case "triggerconstantcontract": {
        if (body.contract_address !== token || body.function_selector !== "balanceOf(address)")
          return { result: { code: "CONTRACT_VALIDATE_ERROR", message: hexText("unknown contract or function") } };
        const holder = tronAddressFromHex(`41${String(body.parameter).slice(24)}`);
        return { result: { result: true }, energy_used: 0, constant_result: [(tokens.get(holder) ?? 0n).toString(16).padStart(64, "0")] };
      }
      case "broadcasthex":
        return broadcast(String(body.transaction));
      case "gettransactioninfobyid": {
        const info = infos.get(String(body.value));
        if (info === undefined) return {};
        if (info.hiddenFor > 0) {
          info.hiddenFor -= 1;
          return {};
        }
        const { hiddenFor: _, ...given } = info;
        // Without `visible`, a log's address is its 20 bytes in hex (the servlet adds 41 and base58 only when visible).
        const log = given.log?.map((l) => ({ ...l, address: body.visible === true ? l.address : tronAddressToHex(l.address).slice(2) }));
        return log === undefined ? given : { ...given, log };
      }
      case "gettransactionbyid": {
        // A node finds a transaction once it is in a block: with its info.
        const info = infos.get(String(body.value));
        return info === undefined || info.hiddenFor > 0 ? {} : (shown.get(info.id) ?? {});
      }
      case "getblockbynum": {
        const num = BigInt(Number(body.num ?? -1));
        const time = blockTimes.get(num);
        return time === undefined ? {} : { blockID: blockId(num), block_header: { raw_data: { number: Number(num), timestamp: Number(time) } } };
      }
      default:
        return { Error: `no such API: /wallet/${path}` };
    }
  };

  const server: Server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      const path = (req.url ?? "").replace(/^\/wallet\//, "");
      calls.push(path);
      let reply: unknown;
      try {
        reply = answer(path, text === "" ? {} : (JSON.parse(text) as Record<string, unknown>));
      } catch (error) {
        reply = { Error: `class java.lang.IllegalArgumentException : ${error instanceof Error ? error.message : String(error)}` };
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    trx,
    tokens,
    taken,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
