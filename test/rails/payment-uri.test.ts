// BIP21 and EIP-681 payment URIs, with exact base-unit amounts.
import { describe, it, expect } from "vitest";
import { Decimal as PlainDecimal } from "decimal.js";
import { Decimal } from "../../src/core/money/amounts.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { toBaseUnits, plainAmount } from "../../src/rails/wallets/payment-uri.ts";

const crypto = (slug: string): CryptoCurrency => cryptoBySlug(slug)!;
const [BTC, LTC, ETH, BNB, USDT] = ["BTC", "LTC", "ETH", "BNB", "USDT"].map(crypto) as [
  CryptoCurrency,
  CryptoCurrency,
  CryptoCurrency,
  CryptoCurrency,
  CryptoCurrency,
];
const rails = new HdWalletRails();
const EVM = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";
const d = (text: string) => new Decimal(text);

describe("BIP21", () => {
  it("BTC live and test", () => {
    expect(rails.paymentUri(BTC, true, "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", d("0.00123400"))).toBe(
      "bitcoin:bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu?amount=0.001234",
    );
    expect(rails.paymentUri(BTC, false, "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", d("2"))).toBe(
      "bitcoin:tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7?amount=2",
    );
  });

  it("LTC live and test", () => {
    expect(rails.paymentUri(LTC, true, "ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh", d("1.5"))).toBe(
      "litecoin:ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh?amount=1.5",
    );
    const testAddress = rails.deriveAddress(LTC, false, rails.createTestWallet(LTC), 3);
    expect(rails.paymentUri(LTC, false, testAddress, d("0.1"))).toBe(`litecoin:${testAddress}?amount=0.1`);
  });

  it("writes tiny and huge amounts without exponents, whatever Decimal's settings", () => {
    const address = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu";
    expect(rails.paymentUri(BTC, true, address, new PlainDecimal("0.00000001"))).toBe(`bitcoin:${address}?amount=0.00000001`);
    expect(rails.paymentUri(BTC, true, address, new PlainDecimal("1e-7"))).toBe(`bitcoin:${address}?amount=0.0000001`);
    expect(rails.paymentUri(BTC, true, address, new PlainDecimal("21000000"))).toBe(`bitcoin:${address}?amount=21000000`);
    expect(rails.paymentUri(BTC, true, address, new PlainDecimal("1e21"))).toBe(`bitcoin:${address}?amount=1000000000000000000000`);
  });

  it("rounds sub-satoshi fractions up", () => {
    expect(plainAmount(d("0.123456781"), 8)).toBe("0.12345679");
    expect(plainAmount(d("0.000000001"), 8)).toBe("0.00000001");
  });
});

describe("EIP-681", () => {
  it("ETH on Ethereum and Sepolia, in wei", () => {
    expect(rails.paymentUri(ETH, true, EVM, d("1.23456789"))).toBe(`ethereum:${EVM}@1?value=1234567890000000000`);
    expect(rails.paymentUri(ETH, false, EVM, d("0.00000001"))).toBe(`ethereum:${EVM}@11155111?value=10000000000`);
  });

  it("BNB on BNB Smart Chain and its testnet", () => {
    expect(rails.paymentUri(BNB, true, EVM, d("0.5"))).toBe(`ethereum:${EVM}@56?value=500000000000000000`);
    expect(rails.paymentUri(BNB, false, EVM, d("3"))).toBe(`ethereum:${EVM}@97?value=3000000000000000000`);
  });

  it("USDT as an ERC-20 transfer in 6-decimal units", () => {
    expect(rails.paymentUri(USDT, true, EVM, d("12.5"))).toBe(
      `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${EVM}&uint256=12500000`,
    );
    expect(rails.paymentUri(USDT, false, EVM, d("0.000001"))).toBe(
      `ethereum:0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0@11155111/transfer?address=${EVM}&uint256=1`,
    );
  });

  it("names a local test chain where test mode is set to one, and leaves live mode alone", () => {
    const local = new HdWalletRails({ testChainIds: { ethereum: 31337, bsc: 31338 } });
    expect(local.paymentUri(ETH, false, EVM, d("1"))).toBe(`ethereum:${EVM}@31337?value=1000000000000000000`);
    expect(local.paymentUri(USDT, false, EVM, d("1"))).toContain("@31337/transfer?");
    expect(local.paymentUri(BNB, false, EVM, d("1"))).toBe(`ethereum:${EVM}@31338?value=1000000000000000000`);
    expect(local.paymentUri(ETH, true, EVM, d("1"))).toBe(`ethereum:${EVM}@1?value=1000000000000000000`);
    expect(local.paymentUri(BNB, true, EVM, d("1"))).toContain("@56?");
  });

  it("takes the USDT contracts from the constructor", () => {
    const custom = new HdWalletRails({ usdtContracts: { test: "0x7169d38820dfd117c3fa1f22a697dba58d90ba06" } });
    expect(custom.paymentUri(USDT, false, EVM, d("1"))).toBe(
      `ethereum:0x7169D38820dfd117C3FA1f22a697dBA58d90BA06@11155111/transfer?address=${EVM}&uint256=1000000`,
    );
    expect(custom.paymentUri(USDT, true, EVM, d("1"))).toContain("0xdAC17F958D2ee523a2206206994597C13D831ec7@1/");
    expect(() => new HdWalletRails({ usdtContracts: { live: "0x1234" } })).toThrow(/usdtContracts\.live/);
  });

  it("is exact for amounts beyond double precision and beyond 20 significant digits", () => {
    expect(toBaseUnits(new PlainDecimal("123456789.123456789012345678"), 18)).toBe("123456789123456789012345678");
    expect(rails.paymentUri(ETH, true, EVM, d("98765432109.876543210987654321"))).toBe(`ethereum:${EVM}@1?value=98765432109876543210987654321`);
    // A 19th decimal is finer than a wei: rounded up.
    expect(rails.paymentUri(ETH, true, EVM, d("1.0000000000000000001"))).toBe(`ethereum:${EVM}@1?value=1000000000000000001`);
    expect(toBaseUnits(d("0.1").plus(d("0.2")), 18)).toBe("300000000000000000");
  });

  it("writes the recipient in EIP-55 form", () => {
    expect(rails.paymentUri(ETH, true, EVM.toLowerCase(), d("1"))).toBe(`ethereum:${EVM}@1?value=1000000000000000000`);
  });
});

describe("refusals", () => {
  it("non-positive or non-finite amounts", () => {
    for (const amount of [d("0"), d("-1"), new PlainDecimal(NaN), new PlainDecimal(Infinity)]) {
      expect(() => rails.paymentUri(BTC, true, "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", amount)).toThrow(RangeError);
      expect(() => rails.paymentUri(ETH, true, EVM, amount)).toThrow(RangeError);
    }
  });

  it("addresses of another network", () => {
    expect(() => rails.paymentUri(BTC, false, "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", d("1"))).toThrow(/Bitcoin testnet/);
    expect(() => rails.paymentUri(LTC, true, "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", d("1"))).toThrow(/LTC/);
    expect(() => rails.paymentUri(ETH, true, "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", d("1"))).toThrow(/ETH/);
  });
});
