// @module-tag browser
// Issue 28: a receipt of a payment on a local test chain (Litecoin regtest, an anvil chain id) links
// no public explorer, which has never seen its transactions: the checkout's receipt shows the hash
// alone and the API's explorerTransactionUrl is null. An operator's own explorer
// (PAYGATE_<COIN>_TEST_EXPLORER_URL) is linked instead; a test chain left on its public testnet
// keeps the public explorer.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { CHAINS, transactionExplorer } from "../../src/core/networks.ts";
import { accessibilityViolations } from "../support/browser.ts";
import { checkoutFixture, heading, problemsOf, text, WAIT } from "./support.ts";

const OWN_EXPLORER = "http://127.0.0.1:4000/tx/{tx}";
const LOCAL_CHAINS = {
  PAYGATE_LTC_TEST_CHAIN: "regtest",
  PAYGATE_ETH_TEST_CHAIN_ID: "31337",
  PAYGATE_BTC_TEST_CHAIN: "regtest",
  PAYGATE_BTC_TEST_EXPLORER_URL: OWN_EXPLORER,
};
const f = checkoutFixture({ merchant: "Regtest Traders", gateway: { env: LOCAL_CHAINS } });

/** A transaction paid in `currencyId` on its default network, through REST, and the API's view of it. */
async function paid(currencyId: string) {
  const { id, checkoutUrl, clientSecret } = await f.initialize({ customer: { email: "ada@example.com" } });
  const pay = await f.t.post(`/v1/transaction/${id}/pay`, { currency_id: currencyId }, { authorization: `Bearer ${f.keys.testSecretKey}` });
  expect(pay.status, JSON.stringify(pay.body)).toBe(200);
  await f.testHelper(id, "payment");
  const data = await f.retrieve(id);
  const res = await fetch(`${f.t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${clientSecret}` },
    body: JSON.stringify({ query: `{ transaction(id: "${id}") { paymentNetwork { slug explorerTransactionUrl } } }` }),
  });
  const body = (await res.json()) as { data: { transaction: { paymentNetwork: { slug: string; explorerTransactionUrl: string | null } } } };
  return { checkoutUrl, hash: data.receipts[0].tx_hash as string, network: body.data.transaction.paymentNetwork };
}

describe("the explorer of a local test chain", () => {
  it("is none for regtest and a local EVM chain id, the operator's when set, and the public testnet's otherwise", () => {
    const { explorers } = loadConfig(LOCAL_CHAINS).chains;
    expect(transactionExplorer("litecoin", false, explorers)).toBeNull();
    expect(transactionExplorer("ethereum", false, explorers)).toBeNull();
    expect(transactionExplorer("bitcoin", false, explorers)).toBe(OWN_EXPLORER);
    expect(transactionExplorer("bsc", false, explorers)).toBe(CHAINS.bsc.test.explorer.transaction);
    // Live mode is never a local chain.
    expect(transactionExplorer("litecoin", true, explorers)).toBe(CHAINS.litecoin.live.explorer.transaction);
    // Sepolia's own chain id named explicitly is the public testnet still.
    expect(transactionExplorer("ethereum", false, loadConfig({ PAYGATE_ETH_TEST_CHAIN_ID: "11155111" }).chains.explorers)).toBe(
      CHAINS.ethereum.test.explorer.transaction,
    );
  });

  it("refuses an explorer URL without {tx} or not http(s), naming the variable", () => {
    for (const url of ["http://127.0.0.1:4000/tx/", "javascript:alert(1)//{tx}"]) {
      expect(() => loadConfig({ PAYGATE_LTC_TEST_EXPLORER_URL: url })).toThrow(
        /PAYGATE_LTC_TEST_EXPLORER_URL.*must be an http:\/\/ or https:\/\/ URL with \{tx\} where the transaction hash goes/,
      );
    }
  });

  it("leaves a Litecoin regtest receipt without a link, in the API and on the receipt page", async () => {
    const { checkoutUrl, hash, network } = await paid("7");
    expect(network).toEqual({ slug: "litecoin", explorerTransactionUrl: null });
    const page = await f.open(checkoutUrl);
    await heading(page, "Thank you: payment received");
    expect(await text(page, "#receipt-transactions code")).toBe(hash);
    expect(await page.locator("#receipt .explorer-link").count()).toBe(0);
    expect(await page.locator("#receipt a").count()).toBe(0);
    expect(await accessibilityViolations(page), "regtest receipt").toEqual([]);
    expect(problemsOf(page)).toEqual([]);
    await page.close();
  });

  it("leaves an anvil (chain 31337) receipt without a link", async () => {
    const { checkoutUrl, hash, network } = await paid("6");
    expect(network).toEqual({ slug: "ethereum", explorerTransactionUrl: null });
    const page = await f.open(checkoutUrl);
    await heading(page, "Thank you: payment received");
    expect(await text(page, "#receipt-transactions code")).toBe(hash);
    expect(await page.locator("#receipt .explorer-link").count()).toBe(0);
    await page.close();
  });

  it("links the operator's explorer of a regtest chain", async () => {
    const { checkoutUrl, hash, network } = await paid("4");
    expect(network).toEqual({ slug: "bitcoin", explorerTransactionUrl: OWN_EXPLORER });
    const page = await f.open(checkoutUrl);
    await page.locator("#receipt .explorer-link").waitFor(WAIT);
    expect(await page.locator("#receipt .explorer-link").getAttribute("href")).toBe(`http://127.0.0.1:4000/tx/${hash}`);
    await page.close();
  });

  it("keeps the public testnet's explorer for a chain left on it (BNB on BSC testnet)", async () => {
    const { checkoutUrl, hash, network } = await paid("5");
    expect(network).toEqual({ slug: "bsc", explorerTransactionUrl: CHAINS.bsc.test.explorer.transaction });
    const page = await f.open(checkoutUrl);
    await page.locator("#receipt .explorer-link").waitFor(WAIT);
    expect(await page.locator("#receipt .explorer-link").getAttribute("href")).toBe(`https://testnet.bscscan.com/tx/${hash}`);
    await page.close();
  });
});
