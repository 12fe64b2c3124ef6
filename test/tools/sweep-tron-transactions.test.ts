// The sweep tool's TRON transactions (tools/sweep/tron-transactions.ts) against transactions a TRON
// node made: the bytes of a TRX transfer (the example of TRON's HTTP API docs for
// wallet/broadcasttransaction) and of two USDT transfers (TriggerSmartContract, with their fee limits)
// are rebuilt from their fields byte for byte; a mainnet USDT transfer's signature recovers its sender
// with the layout read here, and what the tool signs recovers the signing key's address. No node and
// no database: this file runs once per CI run (vitest.config.ts).
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { tronAddressFromHex, tronAddressOf } from "../../src/rails/wallets/tron.ts";
import { rawData, signTronTransfer, tronSigner, type ReferenceBlock } from "../../tools/sweep/tron-transactions.ts";

/** A block whose number ends in `refBlockBytes` and whose id holds `refBlockHash` at bytes 8 to 15 (TAPoS). */
function blockWith(refBlockBytes: string, refBlockHash: string): ReferenceBlock {
  const number = BigInt(`0x7a${refBlockBytes}`);
  return { number, id: `${number.toString(16).padStart(16, "0")}${refBlockHash}${"ab".repeat(16)}` };
}

describe("TRON transactions for the sweep tool", () => {
  it("encodes a TRX transfer as the node does (TransferContract: the HTTP API docs' example, byte for byte)", () => {
    const raw = rawData(
      {
        kind: "trx",
        from: tronAddressFromHex("41608f8da72479edc7dd921e4c30bb7e7cddbe722e"),
        to: tronAddressFromHex("41e9d79cc47518930bc322d9bf7cddd260a0260a8d"),
        amount: 1000n,
      },
      blockWith("5e4b", "47c9dc89341b300d"),
      { expiration: 1591089627000n, timestamp: 1591089567635n },
    );
    expect(bytesToHex(raw)).toBe(
      "0a025e4b220847c9dc89341b300d40f8fed3a2a72e5a66080112620a2d747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e5472616e73666572436f6e747261637412310a1541608f8da72479edc7dd921e4c30bb7e7cddbe722e121541e9d79cc47518930bc322d9bf7cddd260a0260a8d18e8077093afd0a2a72e",
    );
  });

  it.each([
    {
      // 20 USDT to the token's own address, fee limit 30 TRX.
      from: "416e0617948fe030a7e4970f8389d4ad295f249b7e",
      to: "41a614f803b6fd780986a42c78ec9c7f77e6ded13c",
      amount: 20_000_000n,
      feeLimit: 30_000_000n,
      block: blockWith("5796", "9376a6a3333f4719"),
      times: { expiration: 1776888480000n, timestamp: 1776888421971n },
      hex: "0a02579622089376a6a3333f4719408082bab6db335aae01081f12a9010a31747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e54726967676572536d617274436f6e747261637412740a15416e0617948fe030a7e4970f8389d4ad295f249b7e121541a614f803b6fd780986a42c78ec9c7f77e6ded13c2244a9059cbb000000000000000000000000a614f803b6fd780986a42c78ec9c7f77e6ded13c0000000000000000000000000000000000000000000000000000000001312d0070d3bcb6b6db3390018087a70e",
    },
    {
      // 3 USDT to the sender itself, fee limit 150 TRX.
      from: "416bda46f57114c4c3a2617c2ad3b1722d81360df4",
      to: "416bda46f57114c4c3a2617c2ad3b1722d81360df4",
      amount: 3_000_000n,
      feeLimit: 150_000_000n,
      block: blockWith("f96c", "f0006781f475a642"),
      times: { expiration: 1786060362000n, timestamp: 1786059703419n },
      hex: "0a02f96c2208f0006781f475a6424090a2f9cbfd335aae01081f12a9010a31747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e54726967676572536d617274436f6e747261637412740a15416bda46f57114c4c3a2617c2ad3b1722d81360df4121541a614f803b6fd780986a42c78ec9c7f77e6ded13c2244a9059cbb0000000000000000000000006bda46f57114c4c3a2617c2ad3b1722d81360df400000000000000000000000000000000000000000000000000000000002dc6c070fb88d1cbfd33900180a3c347",
    },
  ])("encodes a USDT transfer as the node does (TriggerSmartContract, transfer's call data, the fee limit): $amount units", (v) => {
    const raw = rawData(
      {
        kind: "trc20",
        from: tronAddressFromHex(v.from),
        token: tronAddressFromHex("41a614f803b6fd780986a42c78ec9c7f77e6ded13c"), // USDT on TRON
        to: tronAddressFromHex(v.to),
        amount: v.amount,
        feeLimit: v.feeLimit,
      },
      v.block,
      v.times,
    );
    expect(bytesToHex(raw)).toBe(v.hex);
  });

  it("reads a mainnet transfer's signature as the chain did: its id is the raw data's SHA-256 and it recovers the sender", () => {
    // A USDT transfer mined in block 62,686,538 (its raw data, id and signature as the node reports them).
    const rawDataHex =
      "0a0285372208f373eda9e68b4dc14098a2f1d582325aae01081f12a9010a31747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e54726967676572536d617274436f6e747261637412740a15418ca132af72e7864eee48eac163a1fb4028662091121541a614f803b6fd780986a42c78ec9c7f77e6ded13c2244a9059cbb000000000000000000000041838eed07fa72a857058e4f9f98bf0e6a2f1af473000000000000000000000000000000000000000000000000000000000000465170d5dbedd58232900180c2d72f";
    const txId = bytesToHex(sha256(hexToBytes(rawDataHex)));
    expect(txId).toBe("5e8e3cdf239f31c678b6119c95c76c402a71f50947d960c3905825ee648cd75a");
    const signature =
      "2c527348c6c982d4aeb1fd075b35cd1a4b09226dc5ebe402546061d5a8c0bb53d90ce89d4fadd52e323746d65f81311d4d2f77ab5a28f6ebef7ebd4ee2d0b48101";
    expect(tronSigner(txId, signature)).toBe(tronAddressFromHex("418ca132af72e7864eee48eac163a1fb4028662091"));
    // The same signature with v as 27 + the recovery id (as java-tron reads it) names the same sender.
    expect(tronSigner(txId, `${signature.slice(0, 128)}1c`)).toBe(tronAddressFromHex("418ca132af72e7864eee48eac163a1fb4028662091"));
  });

  it("signs what it encodes: the id is the raw data's SHA-256, the signature recovers the key's address, the hex is both", () => {
    const key = hexToBytes("0b".repeat(32));
    const from = tronAddressOf(secp256k1.getPublicKey(key));
    const block = blockWith("1234", "00112233445566ff");
    const times = { expiration: 1_800_000_060_000n, timestamp: 1_800_000_000_000n };
    const transfer = {
      kind: "trc20" as const,
      from,
      token: tronAddressFromHex("41eca9bc828a3005b9a3b909f2cc5c2a54794de05f"),
      to: tronAddressFromHex("41dd791d6b49e190062d650e6a23c575510d35f2f9"),
      amount: 5_000_000n,
      feeLimit: 20_000_000n,
    };
    const signed = signTronTransfer(transfer, block, times, key);
    expect(signed.rawDataHex).toBe(bytesToHex(rawData(transfer, block, times)));
    expect(signed.txId).toBe(bytesToHex(sha256(hexToBytes(signed.rawDataHex))));
    expect(signed.signature).toMatch(/^[0-9a-f]{128}0[01]$/);
    expect(tronSigner(signed.txId, signed.signature)).toBe(from);
    // protocol.Transaction: raw_data (field 1) then one signature (field 2), each length-delimited.
    const rawLength = signed.rawDataHex.length / 2;
    expect(signed.hex).toBe(`0a${rawLength.toString(16)}01${signed.rawDataHex}1241${signed.signature}`);
    // Another key's signature names another address.
    expect(tronSigner(signed.txId, signTronTransfer(transfer, block, times, hexToBytes("0c".repeat(32))).signature)).not.toBe(from);
  });

  it("refuses a zero amount or fee limit, a bad address and a block id of the wrong size, saying which", () => {
    const block = blockWith("0001", "0000000000000001");
    const times = { expiration: 2n, timestamp: 1n };
    const from = tronAddressFromHex("41608f8da72479edc7dd921e4c30bb7e7cddbe722e");
    expect(() => rawData({ kind: "trx", from, to: from, amount: 0n }, block, times)).toThrow("an amount must be positive, not 0");
    expect(() => rawData({ kind: "trc20", from, token: from, to: from, amount: 1n, feeLimit: 0n }, block, times)).toThrow(
      "an amount must be positive, not 0",
    );
    expect(() => rawData({ kind: "trx", from, to: "T123", amount: 1n }, block, times)).toThrow(/"T123"/);
    expect(() => rawData({ kind: "trx", from, to: from, amount: 1n }, { number: 1n, id: "ab" }, times)).toThrow("a block id is 32 bytes, not 1");
    expect(() => tronSigner("00".repeat(32), "00")).toThrow("a TRON signature is 65 bytes, not 1");
  });
});
