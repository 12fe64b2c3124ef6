// The checkout's wrong-network warning (issue 43), its pure parts: a wallet's chain id read as a
// network name in each language, an unknown one by its number, and the sentence naming both.
import { describe, expect, it } from "vitest";
import { chainIdOf, chainWarningText, knownChainName } from "../../web/checkout/chain-warning.ts";
import { LOCALES, MESSAGES } from "../../web/checkout/i18n.ts";

const en = MESSAGES.en;
const base = { chainId: 8453, name: "Base" };

describe("a wallet's chain id", () => {
  it("is read from the wallet's hex answer; anything else is no chain id", () => {
    expect(chainIdOf("0x38")).toBe(56);
    expect(chainIdOf("0x2105")).toBe(8453);
    expect(chainIdOf("0xAA36A7")).toBe(11_155_111);
    for (const bad of ["56", "0x", "0xzz", 56, null, undefined, {}, "0x10000000000000"]) expect(chainIdOf(bad), String(bad)).toBeNull();
  });

  it("names paygate's networks, live and test, in the page's language", () => {
    expect(knownChainName(56, en)).toBe("BNB Smart Chain");
    expect(knownChainName(97, en)).toBe("BNB Smart Chain testnet");
    expect(knownChainName(1, en)).toBe("Ethereum");
    expect(knownChainName(421614, en)).toBe("Arbitrum Sepolia testnet");
    expect(knownChainName(56, MESSAGES.ar)).toBe("بي إن بي سمارت تشين");
    expect(knownChainName(31337, en)).toBeNull();
  });
});

describe("the warning", () => {
  it("names both networks when the wallet is on another one", () => {
    expect(chainWarningText(56, base, en)).toBe("Your wallet is on BNB Smart Chain; this payment is on Base.");
    expect(chainWarningText(56, { chainId: 8453, name: "بيس" }, MESSAGES.ar)).toBe("محفظتك على شبكة بي إن بي سمارت تشين؛ وهذه الدفعة على شبكة بيس.");
  });

  it("names an unknown chain by its number, in every language", () => {
    expect(chainWarningText(31337, base, en)).toBe("Your wallet is on the network with chain ID 31337; this payment is on Base.");
    for (const l of LOCALES) {
      const text = chainWarningText(424242, base, MESSAGES[l]);
      expect(text, l).toContain("424242");
      expect(text, l).toContain("Base");
    }
  });

  it("never names the two the same: a local chain standing for a public one is named by its number", () => {
    const local = { chainId: 31337, name: "Ethereum Sepolia testnet" };
    expect(chainWarningText(11155111, local, en)).toBe(
      "Your wallet is on the network with chain ID 11155111; this payment is on Ethereum Sepolia testnet.",
    );
  });

  it("is nothing on the payment's chain, or when the wallet said no chain", () => {
    expect(chainWarningText(8453, base, en)).toBeNull();
    expect(chainWarningText(null, base, en)).toBeNull();
  });

  it("exists in each of the checkout's languages, each its own", () => {
    const sentences = LOCALES.map((l) => MESSAGES[l].walletOtherNetwork("X", "Y"));
    expect(new Set(sentences).size).toBe(LOCALES.length);
    for (const [i, l] of LOCALES.entries()) {
      expect(sentences[i], l).toMatch(/X.*Y/);
      expect(MESSAGES[l].switchWalletTo("Y"), l).toContain("Y");
      expect(MESSAGES[l].walletNowOnNetwork("Y"), l).toContain("Y");
    }
  });
});
