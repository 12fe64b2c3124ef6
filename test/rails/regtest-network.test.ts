// Test mode on a regtest node (PAYGATE_BTC_TEST_CHAIN / PAYGATE_LTC_TEST_CHAIN=regtest): receive
// addresses, payment URIs and refund addresses take regtest's bech32 prefix (bcrt1…, rltc1…), with
// the same keys and the same derived programs as on testnet; live mode and the default test mode
// (testnet) are unchanged. (That a regtest node takes these addresses: test/e2e/ltc-regtest.test.ts.)
import { bech32 } from "@scure/base";
import { describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { ChainEnvSchema, chainConfig } from "../../src/rails/chains/config.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";

const BTC = cryptoBySlug("BTC") as CryptoCurrency;
const LTC = cryptoBySlug("LTC") as CryptoCurrency;
const testnet = new HdWalletRails();
const regtest = new HdWalletRails({ utxoTestChains: { BTC: "regtest", LTC: "regtest" } });
const program = (address: string) => bech32.decode(address as `${string}1${string}`).words;

describe("regtest as BTC's and LTC's test chain", () => {
  for (const [currency, testHrp, regtestHrp, scheme] of [
    [BTC, "tb", "bcrt", "bitcoin"],
    [LTC, "tltc", "rltc", "litecoin"],
  ] as const) {
    it(`derives ${regtestHrp}1 addresses for ${currency.slug}, the testnet ones' programs under regtest's prefix`, () => {
      const key = testnet.createTestWallet(currency);
      for (const index of [0, 1, 7]) {
        const onTestnet = testnet.deriveAddress(currency, false, key, index);
        const onRegtest = regtest.deriveAddress(currency, false, key, index);
        expect(onTestnet.startsWith(`${testHrp}1q`)).toBe(true);
        expect(onRegtest.startsWith(`${regtestHrp}1q`)).toBe(true);
        expect(program(onRegtest)).toEqual(program(onTestnet));
        expect(regtest.deriveAddress(currency, true, LIVE_ZPUB, index)).toBe(testnet.deriveAddress(currency, true, LIVE_ZPUB, index));
      }
    });

    it(`gives ${currency.slug} payment URIs and refund addresses on regtest, and refuses testnet's there`, () => {
      const key = testnet.createTestWallet(currency);
      const address = regtest.deriveAddress(currency, false, key, 0);
      expect(regtest.paymentUri(currency, false, address, new Decimal("0.125"))).toBe(`${scheme}:${address}?amount=0.125`);
      expect(regtest.isValidAddress(currency, false, address)).toBe(true);
      const testnetAddress = testnet.deriveAddress(currency, false, key, 0);
      expect(regtest.isValidAddress(currency, false, testnetAddress)).toBe(false);
      expect(testnet.isValidAddress(currency, false, address)).toBe(false);
      expect(() => regtest.paymentUri(currency, false, testnetAddress, new Decimal(1))).toThrow(/regtest/);
      // Base58 addresses keep testnet's versions on regtest (m…/n… P2PKH).
      expect(regtest.isValidAddress(currency, false, "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn")).toBe(true);
    });
  }

  it("is chosen per coin by PAYGATE_BTC_TEST_CHAIN and PAYGATE_LTC_TEST_CHAIN, testnet by default, and an own node must be on it", () => {
    const config = chainConfig(ChainEnvSchema.parse({ PAYGATE_LTC_TEST_CHAIN: "regtest", PAYGATE_LTC_TEST_NODE_URL: "http://u:p@127.0.0.1:19443" }));
    expect(config.utxoTestChains).toEqual({ BTC: "test", LTC: "regtest" });
    expect(config.coreNodes?.LTC?.test?.chain).toBe("regtest");
    const rails = new HdWalletRails({ utxoTestChains: config.utxoTestChains });
    const key = testnet.createTestWallet(BTC);
    expect(rails.deriveAddress(BTC, false, key, 0)).toMatch(/^tb1q/);
    expect(rails.deriveAddress(LTC, false, testnet.createTestWallet(LTC), 0)).toMatch(/^rltc1q/);
    expect(chainConfig(ChainEnvSchema.parse({ PAYGATE_BTC_TEST_CHAIN: "signet" })).utxoTestChains.BTC).toBe("signet");
    expect(new HdWalletRails({ utxoTestChains: { BTC: "signet" } }).deriveAddress(BTC, false, key, 0)).toBe(
      testnet.deriveAddress(BTC, false, key, 0),
    );
    const issues = (input: Record<string, string>) => ChainEnvSchema.safeParse(input).error?.issues.map((i) => i.path.join("."));
    expect(issues({ PAYGATE_LTC_TEST_CHAIN: "signet" })).toEqual(["PAYGATE_LTC_TEST_CHAIN"]);
    expect(issues({ PAYGATE_BTC_TEST_CHAIN: "main" })).toEqual(["PAYGATE_BTC_TEST_CHAIN"]);
  });
});

// BIP84's test vector account key (mnemonic "abandon … about"): live mode ignores the test chain.
const LIVE_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
