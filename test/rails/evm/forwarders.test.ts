// The forwarders' off-chain half without a node (issue 40): CREATE2 and CREATE addresses against the
// published examples, the salt that binds the destination, the flush call's encoding and the reading
// of a flush's logs. forwarders-anvil.test.ts checks the same functions against the chain. No database.
import { keccak_256 } from "@noble/hashes/sha3.js";
import { hexToBytes } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import {
  boundSalt,
  create2Address,
  encodeFlush,
  FLUSH_FAILED_TOPIC,
  FORWARD_FAILED_TOPIC,
  FORWARDED_TOPIC,
  flushOutcomes,
  forwarderAddress,
  implementationOf,
  paymentSalt,
} from "../../../src/rails/evm/forwarders.ts";

const ZERO_ADDRESS = `0x${"0".repeat(40)}`;
const ZERO_SALT = `0x${"0".repeat(64)}`;
const hashOf = (hex: string) => keccak_256(hexToBytes(hex));
const padded = (address: string) => `0x${"0".repeat(24)}${address.slice(2).toLowerCase()}`;

describe("forwarder addresses off chain", () => {
  it("computes CREATE2 addresses as EIP-1014's examples give them", () => {
    expect(create2Address(ZERO_ADDRESS, ZERO_SALT, hashOf("00"))).toBe("0x4D1A2e2bB4F88F0250f26Ffff098B0b30B26BF38");
    expect(create2Address("0xdeadbeef00000000000000000000000000000000", ZERO_SALT, hashOf("00"))).toBe("0xB928f69Bb1D91Cd65274e3c79d8986362984fDA3");
    expect(create2Address("0xdeadbeef00000000000000000000000000000000", `0x000000000000000000000000feed${"0".repeat(36)}`, hashOf("00"))).toBe(
      "0xD04116cDd17beBE565EB2422F2497E06cC1C9833",
    );
    expect(create2Address(ZERO_ADDRESS, ZERO_SALT, hashOf("deadbeef"))).toBe("0x70f2b2914A2a4b783FaEFb75f459A580616Fcb5e");
    expect(create2Address("0x00000000000000000000000000000000deadbeef", `0x${"0".repeat(56)}cafebabe`, hashOf("deadbeef"))).toBe(
      "0x60f3f640a8508fC6a86d45DF051962668E1e8AC7",
    );
    expect(create2Address(ZERO_ADDRESS, ZERO_SALT, hashOf(""))).toBe("0xE33C0C7F7df4809055C3ebA6c09CFe4BaF1BD9e0");
  });

  it("finds the factory's implementation at its CREATE address of nonce 1", () => {
    expect(implementationOf("0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0").toLowerCase()).toBe("0x343c43a37d37dff08ae8c4a11544c718abb4fcf8");
  });

  it("binds the destination into the salt: another destination or another payment is another address", () => {
    const factory = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
    const merchant = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    const salt = paymentSalt("txn_123");
    expect(salt).toMatch(/^0x[0-9a-f]{64}$/);
    expect(boundSalt({ destination: merchant, salt })).toBe(
      `0x${Buffer.from(hashOf(`${padded(merchant).slice(2)}${salt.slice(2)}`)).toString("hex")}`,
    );
    const address = forwarderAddress(factory, { destination: merchant, salt });
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(forwarderAddress(factory, { destination: merchant.toLowerCase(), salt })).toBe(address);
    expect(forwarderAddress(factory, { destination: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", salt })).not.toBe(address);
    expect(forwarderAddress(factory, { destination: merchant, salt: paymentSalt("txn_124") })).not.toBe(address);
    expect(forwarderAddress("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512", { destination: merchant, salt })).not.toBe(address);
  });

  it("refuses what is not an address, a 32-byte salt or a reference", () => {
    const merchant = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    expect(() => paymentSalt("")).toThrow("a payment's salt needs a reference");
    expect(() => forwarderAddress("0x1234", { destination: merchant, salt: ZERO_SALT })).toThrow("not an EVM address: 0x1234");
    expect(() => forwarderAddress(merchant, { destination: "TXYZ", salt: ZERO_SALT })).toThrow("not an EVM address: TXYZ");
    expect(() => forwarderAddress(ZERO_ADDRESS, { destination: merchant, salt: "0x12" })).toThrow("not 32 bytes of hex: 0x12");
    expect(() => encodeFlush([], ["0xnope"])).toThrow("not an EVM address: 0xnope");
    expect(() => forwarderAddress(merchant, { destination: ZERO_ADDRESS, salt: ZERO_SALT })).toThrow(
      "a forwarder's destination cannot be the zero address",
    );
    expect(() => forwarderAddress(merchant, { destination: merchant.toLowerCase(), salt: ZERO_SALT })).toThrow(
      "a forwarder's destination cannot be its factory",
    );
  });
});

describe("the flush call and its logs", () => {
  it("encodes flush((address,bytes32)[],address[]) as the ABI lays it out", () => {
    const destination = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    const salt = `0x${"ab".repeat(32)}`;
    const token = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
    const data = encodeFlush([{ destination, salt }], [token]);
    const selector = Buffer.from(keccak_256(new TextEncoder().encode("flush((address,bytes32)[],address[])")).subarray(0, 4)).toString("hex");
    const words = data.slice(10).match(/.{64}/g);
    expect(data.slice(2, 10)).toBe(selector);
    expect(words).toEqual([
      (64).toString(16).padStart(64, "0"), // deposits start after the two offsets
      (160).toString(16).padStart(64, "0"), // tokens after the deposits' length and one (address, salt)
      "1".padStart(64, "0"),
      padded(destination).slice(2),
      "ab".repeat(32),
      "1".padStart(64, "0"),
      padded(token).slice(2),
    ]);
    expect(encodeFlush([], [])).toBe(`0x${selector}${(64).toString(16).padStart(64, "0")}${(96).toString(16).padStart(64, "0")}${"0".repeat(128)}`);
  });

  it("reads what each forwarder did from the receipt's logs, leaving the tokens' own logs out", () => {
    const factory = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
    const token = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
    const destination = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    const deposit = { destination, salt: paymentSalt("txn_1") };
    const forwarder = forwarderAddress(factory, deposit);
    const amount = (n: bigint) => `0x${n.toString(16).padStart(64, "0")}`;
    const transfer = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
    const logs = [
      { address: token, topics: [transfer, padded(forwarder), padded(destination)], data: amount(25_000_000n) },
      { address: forwarder, topics: [FORWARDED_TOPIC, padded(token), padded(destination)], data: amount(25_000_000n) },
      { address: forwarder, topics: [FORWARD_FAILED_TOPIC, padded(ZERO_ADDRESS), padded(destination)], data: amount(10n ** 18n) },
      { address: factory.toLowerCase(), topics: [FLUSH_FAILED_TOPIC, padded(forwarder)], data: "0x" },
      // FlushFailed from another contract is not this factory's word, nor a Forwarded the token logs itself.
      { address: token, topics: [FLUSH_FAILED_TOPIC, padded(forwarder)], data: "0x" },
      { address: token, topics: [FORWARDED_TOPIC, padded(token), padded(destination)], data: amount(10n ** 30n) },
    ];
    expect(flushOutcomes(factory, [deposit], logs)).toEqual([
      { kind: "forwarded", forwarder, token, destination, amount: 25_000_000n },
      { kind: "forward_failed", forwarder, token: null, destination, amount: 10n ** 18n },
      { kind: "flush_failed", forwarder },
    ]);
  });
});
