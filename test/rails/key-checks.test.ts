// Which extended keys each currency and mode accepts, and what the operator is told otherwise.
import { describe, it, expect } from "vitest";
import { HDKey } from "@scure/bip32";
import { createBase58check } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import { hexToBytes } from "@noble/hashes/utils.js";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { versionsOf, keyFormat } from "../../src/rails/wallets/extended-keys.ts";
import type { KeyPrefix } from "../../src/rails/wallets/networks.ts";
import { serializeKey } from "../support/hd-keys.ts";

const crypto = (slug: string): CryptoCurrency => cryptoBySlug(slug)!;
const [BTC, LTC, ETH, BNB, USDT] = ["BTC", "LTC", "ETH", "BNB", "USDT"].map(crypto) as [
  CryptoCurrency,
  CryptoCurrency,
  CryptoCurrency,
  CryptoCurrency,
  CryptoCurrency,
];
const rails = new HdWalletRails();
const base58check = createBase58check(sha256);

// One account-level node (depth 3, hardened index), serialised in every format.
const master = HDKey.fromMasterSeed(hexToBytes("000102030405060708090a0b0c0d0e0f"));
const account = master.derive("m/84'/0'/0'");
const pub = (prefix: KeyPrefix, node: HDKey = account) => serializeKey(node, prefix, "public");
const priv = (prefix: KeyPrefix, node: HDKey = account) => serializeKey(node, prefix, "private");
/** A serialized key with arbitrary fields, bypassing @scure/bip32's own checks. */
function rawKey(version: number, depth: number, index: number, key: Uint8Array): string {
  const payload = new Uint8Array(78);
  const view = new DataView(payload.buffer);
  view.setUint32(0, version);
  payload[4] = depth;
  view.setUint32(5, 0x01020304);
  view.setUint32(9, index);
  payload.set(account.chainCode!, 13);
  payload.set(key, 45);
  return base58check.encode(payload);
}

function reasonOf(currency: CryptoCurrency, isLive: boolean, key: string): string {
  const check = rails.checkExtendedPublicKey(currency, isLive, key);
  if (check.ok) throw new Error(`${currency.slug} ${isLive ? "live" : "test"} accepted ${key}`);
  return check.reason;
}

describe("accepted key formats", () => {
  const table: Array<[CryptoCurrency, boolean, KeyPrefix[]]> = [
    [BTC, true, ["xpub", "zpub"]],
    [BTC, false, ["tpub", "vpub"]],
    [LTC, true, ["Ltub", "zpub", "xpub"]],
    [LTC, false, ["ttub", "vpub", "tpub"]],
    [ETH, true, ["xpub"]],
    [ETH, false, ["tpub", "xpub"]],
    [BNB, true, ["xpub"]],
    [BNB, false, ["tpub", "xpub"]],
    [USDT, true, ["xpub"]],
    [USDT, false, ["tpub", "xpub"]],
  ];
  const all: KeyPrefix[] = ["xpub", "ypub", "zpub", "Ypub", "Zpub", "tpub", "upub", "vpub", "Upub", "Vpub", "Ltub", "Mtub", "ttub"];

  for (const [currency, isLive, accepted] of table) {
    it(`${currency.slug} in ${isLive ? "live" : "test"} mode takes ${accepted.join(", ")} and nothing else`, () => {
      for (const prefix of all) {
        const check = rails.checkExtendedPublicKey(currency, isLive, pub(prefix));
        expect(check.ok, `${prefix}: ${JSON.stringify(check)}`).toBe(accepted.includes(prefix));
      }
    });
  }
});

describe("refusals say what was expected", () => {
  it("a testnet key in live mode", () => {
    expect(reasonOf(BTC, true, pub("tpub"))).toContain("expected a mainnet key (xpub or zpub) for BTC in live mode, got a testnet key (tpub)");
    expect(reasonOf(LTC, true, pub("ttub"))).toContain(
      "expected a mainnet key (Ltub, zpub or xpub) for LTC in live mode, got a Litecoin testnet key (ttub)",
    );
    expect(reasonOf(ETH, true, pub("tpub"))).toContain("expected a mainnet key (xpub) for ETH in live mode, got a testnet key (tpub)");
  });

  it("a mainnet key in test mode", () => {
    expect(reasonOf(BTC, false, pub("zpub"))).toContain(
      "expected a testnet key (tpub or vpub) for BTC in test mode, got a mainnet native SegWit (BIP84) key (zpub)",
    );
    expect(reasonOf(LTC, false, pub("Ltub"))).toContain("for LTC in test mode, got a Litecoin mainnet key (Ltub)");
    expect(reasonOf(USDT, false, pub("zpub"))).toContain("expected a tpub or xpub key for USDT in test mode");
    expect(reasonOf(USDT, false, pub("zpub"))).not.toContain("test-network");
  });

  it("a key of another coin or script type", () => {
    expect(reasonOf(BTC, true, pub("Ltub"))).toMatch(/got a Litecoin mainnet key \(Ltub\); that is a Litecoin key/);
    expect(reasonOf(BTC, true, pub("ypub"))).toMatch(/wrapped-SegWit \(BIP49\) key \(ypub\).*native SegWit/);
    expect(reasonOf(LTC, true, pub("Mtub"))).toMatch(/wrapped-SegWit \(BIP49\) key \(Mtub\)/);
    expect(reasonOf(BTC, true, pub("Zpub"))).toMatch(/multisig wallets are not supported/);
    expect(reasonOf(BNB, true, pub("zpub"))).toMatch(/for BNB in live mode.*m\/44'\/60'\/0'/);
  });

  it("private keys, with the warning never to hand one over", () => {
    for (const [currency, isLive, prefix] of [
      [BTC, true, "xpub"],
      [BTC, true, "zpub"],
      [BTC, false, "tpub"],
      [BTC, false, "vpub"],
      [LTC, true, "Ltub"],
      [LTC, false, "ttub"],
      [ETH, true, "xpub"],
      [USDT, false, "tpub"],
    ] as const) {
      const key = priv(prefix);
      expect(key.startsWith(keyFormat(prefix).privatePrefix)).toBe(true);
      const reason = reasonOf(currency, isLive, key);
      expect(reason).toContain(`this is a private key (${keyFormat(prefix).privatePrefix})`);
      expect(reason).toContain("Never give the server a private key");
      expect(reason).not.toContain(key);
    }
    // Private key material behind a public version.
    const disguised = rawKey(versionsOf("xpub").public, 3, 0x80000000, new Uint8Array([0, ...account.privateKey!]));
    expect(reasonOf(BTC, true, disguised)).toContain("Never give the server a private key");
  });

  it("keys that are not at account level", () => {
    expect(reasonOf(BTC, true, master.publicExtendedKey)).toMatch(/account-level key \(depth 3, e\.g\. m\/84'\/0'\/0'\).*depth 0/);
    expect(reasonOf(ETH, true, pub("xpub", master.derive("m/44'/60'/0'/0")))).toMatch(/depth 4 \(a chain key/);
    expect(reasonOf(BTC, false, pub("vpub", master.derive("m/84'/1'/0'/0/0")))).toMatch(/depth 5 \(a single address key\)/);
    expect(reasonOf(BTC, true, pub("zpub", master.derive("m/84'/0'/0")))).toMatch(/hardened index.*non-hardened index 0/);
  });

  it("strings that are not keys", () => {
    const good = pub("zpub");
    const mistyped = good.slice(0, 20) + (good[20] === "a" ? "b" : "a") + good.slice(21);
    expect(reasonOf(BTC, true, "")).toContain("empty");
    expect(reasonOf(BTC, true, ` ${good}`)).toContain("whitespace");
    expect(reasonOf(BTC, true, `${good}\n`)).toContain("whitespace");
    expect(reasonOf(BTC, true, "zpub-not-a-key")).toContain("not base58");
    expect(reasonOf(BTC, true, mistyped)).toContain("checksum");
    expect(reasonOf(BTC, true, good.slice(0, -4))).toContain("checksum");
    expect(reasonOf(BTC, true, "1".repeat(500))).toContain("too long");
    expect(reasonOf(BTC, true, base58check.encode(new Uint8Array(40)))).toContain("40 bytes of data instead of 78");
    expect(reasonOf(BTC, true, rawKey(0x12345678, 3, 0x80000000, account.publicKey!))).toContain("unrecognised extended key version 0x12345678");
    const offCurve = new Uint8Array(33).fill(0xff);
    offCurve[0] = 0x02;
    expect(reasonOf(BTC, true, rawKey(versionsOf("zpub").public, 3, 0x80000000, offCurve))).toContain("valid secp256k1 public key");
    for (const reason of [reasonOf(BTC, true, mistyped), reasonOf(BTC, true, "x")]) {
      expect(reason).toContain("expected a mainnet key (xpub or zpub) for BTC in live mode");
    }
  });

  it("deriveAddress throws with the reason on a refused key", () => {
    expect(() => rails.deriveAddress(BTC, true, pub("tpub"), 0)).toThrow(/got a testnet key \(tpub\)/);
    expect(() => rails.deriveAddress(BTC, true, priv("zpub"), 0)).toThrow(/Never give the server a private key/);
    expect(() => rails.deriveAddress(ETH, true, "nonsense", 0)).toThrow(/ETH/);
  });

  it("a key accepted in one mode is not reused from the cache in the other", () => {
    const zpub = pub("zpub");
    expect(rails.deriveAddress(BTC, true, zpub, 0)).toMatch(/^bc1q/);
    expect(() => rails.deriveAddress(BTC, false, zpub, 0)).toThrow(/test mode/);
    expect(() => rails.deriveAddress(ETH, true, zpub, 0)).toThrow(/ETH/);
  });
});
