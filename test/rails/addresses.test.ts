// Refund address validation, per currency and mode.
import { describe, it, expect } from "vitest";
import { bech32, bech32m, createBase58check } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { HdWalletRails, toChecksumAddress } from "../../src/rails/wallets/index.ts";

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
const hash20 = Uint8Array.from({ length: 20 }, (_, i) => i * 7 + 1);
const base58Address = (version: number, body: Uint8Array = hash20) => base58check.encode(Uint8Array.from([version, ...body]));
const segwit = (hrp: string, version: number, program: Uint8Array, codec = version === 0 ? bech32 : bech32m) =>
  codec.encode(hrp, [version, ...codec.toWords(program)]);

describe("Bitcoin addresses", () => {
  // BIP173 / BIP350 valid vectors.
  const mainnet = [
    "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", // v0, 20 bytes, upper case
    "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
    "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3", // v0, 32 bytes
    "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", // v1 taproot
    "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", // BIP84 vector
    "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", // P2PKH (genesis)
    "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", // P2SH
  ];
  const testnet = [
    "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7",
    "tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy",
    "tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c",
    "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn",
    "2N8hwP1WmJrFF5QWABn38y63uYLhnJYJYTF",
  ];

  it("accepts each mode's own addresses only", () => {
    for (const a of mainnet) {
      expect(rails.isValidAddress(BTC, true, a), a).toBe(true);
      expect(rails.isValidAddress(BTC, false, a), a).toBe(false);
    }
    for (const a of testnet) {
      expect(rails.isValidAddress(BTC, false, a), a).toBe(true);
      expect(rails.isValidAddress(BTC, true, a), a).toBe(false);
    }
  });

  it("refuses the BIP173/BIP350 invalid vectors and other malformed strings", () => {
    for (const a of [
      "tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut", // unknown HRP
      "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd", // v1 with bech32 checksum
      "BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL", // v16 with bech32 checksum
      "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh", // v0 with bech32m checksum
      "bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4", // invalid character
      "BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R", // witness version 17
      "bc1pw5dgrnzv", // 1-byte program
      "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav", // 41-byte program
      "BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P", // v0 with a 16-byte program
      "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf", // padding over 4 bits
      "bc1gmk9yu", // empty data
      "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", // bad checksum
      "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kV8F3T4", // mixed case
      "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb", // bad base58 checksum
      "",
      "bitcoin:bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu",
      " bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu",
      "0x9858EfFD232B4033E47d90003D41EC34EcaEda94",
    ]) {
      expect(rails.isValidAddress(BTC, true, a), a).toBe(false);
    }
    // Starts with "bc1" but its human-readable part is "bc1x".
    expect(rails.isValidAddress(BTC, true, segwit("bc1x", 0, hash20))).toBe(false);
    expect(rails.isValidAddress(LTC, false, segwit("tltc1z", 0, hash20))).toBe(false);
    expect(rails.isValidAddress(BTC, false, "tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47")).toBe(false);
    expect(rails.isValidAddress(BTC, false, "tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq")).toBe(false);
    expect(rails.isValidAddress(BTC, false, "tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j")).toBe(false);
  });

  it("checks witness program lengths and refuses future witness versions", () => {
    expect(rails.isValidAddress(BTC, true, segwit("bc", 0, new Uint8Array(20)))).toBe(true);
    expect(rails.isValidAddress(BTC, true, segwit("bc", 0, new Uint8Array(32)))).toBe(true);
    expect(rails.isValidAddress(BTC, true, segwit("bc", 0, new Uint8Array(21)))).toBe(false);
    expect(rails.isValidAddress(BTC, true, segwit("bc", 0, new Uint8Array(31)))).toBe(false);
    expect(rails.isValidAddress(BTC, true, segwit("bc", 1, new Uint8Array(32)))).toBe(true);
    expect(rails.isValidAddress(BTC, true, segwit("bc", 1, new Uint8Array(20)))).toBe(false);
    expect(rails.isValidAddress(BTC, true, "bc1pfeessrawgf")).toBe(false); // pay-to-anchor, v1 with 2 bytes
    // Well-formed by BIP350 (v2 and v16) but anyone-can-spend today.
    expect(rails.isValidAddress(BTC, true, "bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs")).toBe(false);
    expect(rails.isValidAddress(BTC, true, "BC1SW50QGDZ25J")).toBe(false);
  });

  it("checks base58 version bytes", () => {
    expect(rails.isValidAddress(BTC, true, base58Address(0x00))).toBe(true);
    expect(rails.isValidAddress(BTC, true, base58Address(0x05))).toBe(true);
    expect(rails.isValidAddress(BTC, true, base58Address(0x30))).toBe(false);
    expect(rails.isValidAddress(BTC, false, base58Address(0x6f))).toBe(true);
    expect(rails.isValidAddress(BTC, false, base58Address(0xc4))).toBe(true);
    expect(rails.isValidAddress(BTC, false, base58Address(0x3a))).toBe(false);
    expect(rails.isValidAddress(BTC, true, base58Address(0x00, new Uint8Array(19)))).toBe(false);
    expect(rails.isValidAddress(BTC, true, base58Address(0x00, new Uint8Array(21)))).toBe(false);
  });
});

describe("Litecoin addresses", () => {
  it("accepts ltc1 / L / M / legacy 3 in live mode", () => {
    for (const a of [
      "ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh",
      segwit("ltc", 0, new Uint8Array(32).fill(3)),
      segwit("ltc", 1, new Uint8Array(32).fill(4)),
      "LV7LV7Z4bWDEjYkfx9dQo6k6RjGbXsg6hS",
      "LTVdcw8fdTTK4TcebTZ4jiiCbvTXaRxZNh",
      base58Address(0x30),
      base58Address(0x32),
      base58Address(0x05),
    ]) {
      expect(rails.isValidAddress(LTC, true, a), a).toBe(true);
      expect(rails.isValidAddress(LTC, false, a), a).toBe(false);
    }
  });

  it("accepts tltc1 / m,n / Q / 2 in test mode", () => {
    for (const a of [
      segwit("tltc", 0, hash20),
      segwit("tltc", 1, new Uint8Array(32).fill(9)),
      base58Address(0x6f),
      base58Address(0x3a),
      base58Address(0xc4),
    ]) {
      expect(rails.isValidAddress(LTC, false, a), a).toBe(true);
      expect(rails.isValidAddress(LTC, true, a), a).toBe(false);
    }
  });

  it("refuses Bitcoin-only forms", () => {
    for (const a of ["bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", segwit("ltc", 0, new Uint8Array(25))]) {
      expect(rails.isValidAddress(LTC, true, a), a).toBe(false);
    }
    expect(rails.isValidAddress(LTC, false, "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7")).toBe(false);
  });
});

describe("EVM addresses (EIP-55)", () => {
  // From the EIP-55 specification.
  const checksummed = [
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
    "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
    "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
  ];
  const allCaps = ["0x52908400098527886E0F7030069857D2E4169EE7", "0x8617E340B3D01FA5F11F306F4090FD50E238070D"];
  const allLower = ["0xde709f2102306220921060314715629080e2fb77", "0x27b1fdb04752bbc536007a920d24acb045561c26"];

  it("computes the EIP-55 checksum of the spec's examples", () => {
    for (const a of [...checksummed, ...allCaps, ...allLower]) expect(toChecksumAddress(a.toLowerCase())).toBe(a);
    expect(toChecksumAddress("0xdac17f958d2ee523a2206206994597c13d831ec7")).toBe("0xdAC17F958D2ee523a2206206994597C13D831ec7");
  });

  it("accepts single-case and correctly checksummed addresses in both modes", () => {
    for (const currency of [ETH, BNB, USDT]) {
      for (const isLive of [true, false]) {
        for (const a of [...checksummed, ...allCaps, ...allLower, ...checksummed.map((c) => c.toLowerCase())]) {
          expect(rails.isValidAddress(currency, isLive, a), a).toBe(true);
        }
      }
    }
  });

  it("refuses a wrong checksum and malformed strings", () => {
    const wrongCase = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD";
    for (const a of [
      wrongCase,
      "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae", // 39 digits
      "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaedd",
      "5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
      "0X5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED",
      "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg",
      "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu",
      "",
    ]) {
      expect(rails.isValidAddress(ETH, true, a), a).toBe(false);
    }
  });

  it("refuses the zero address, and the token contract as a USDT recipient", () => {
    expect(rails.isValidAddress(ETH, true, "0x0000000000000000000000000000000000000000")).toBe(false);
    expect(rails.isValidAddress(USDT, true, "0xdAC17F958D2ee523a2206206994597C13D831ec7")).toBe(false);
    expect(rails.isValidAddress(USDT, true, "0xdac17f958d2ee523a2206206994597c13d831ec7")).toBe(false);
    expect(rails.isValidAddress(USDT, false, "0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0")).toBe(false);
    // Not the token in the other mode, and fine for ETH.
    expect(rails.isValidAddress(USDT, false, "0xdAC17F958D2ee523a2206206994597C13D831ec7")).toBe(true);
    expect(rails.isValidAddress(ETH, true, "0xdAC17F958D2ee523a2206206994597C13D831ec7")).toBe(true);
  });
});
