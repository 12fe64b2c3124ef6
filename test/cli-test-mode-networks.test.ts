// Issue 43: test mode works at once on every coin and network. A merchant made by `paygate merchant
// create` (no key given) initiates each coin × network of src/core/networks.ts in test mode over REST,
// and GraphQL's paymentOptions lists them all, each with its fee level and token contract.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConfiguredApp, type PaygateApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { cryptoBySlug } from "../src/core/money/currencies.ts";
import { CHAINS, COIN_NETWORKS, explorerLink } from "../src/core/networks.ts";
import { createLogger } from "../src/logging.ts";
import { startRuntime, type Runtime } from "../src/runtime.ts";
import { initializeBody } from "./support/builders.ts";
import { useCli } from "./support/cli.ts";

const paygate = useCli({ inProcess: true, migrated: true });
const ADDRESS = { evm: /^0x[0-9a-fA-F]{40}$/, tron: /^T[1-9A-HJ-NP-Za-km-z]{33}$/, utxo: /^(tb1|tltc1)q[0-9a-z]{38,}$/ };

let merchant: { id: number; testPublicKey: string; testSecretKey: string };
let runtime: Runtime;
let app: PaygateApp;
let server: Server;
let url: string;

beforeAll(async () => {
  const created = await paygate("merchant", "create", "--name", "Every Coin Ltd", "--json");
  expect(created.code, created.stderr).toBe(0);
  merchant = JSON.parse(created.stdout);
  const config = loadConfig(paygate.env());
  runtime = await startRuntime(config, { log: () => {} });
  app = await createConfiguredApp(config, runtime, { logger: createLogger({ level: "silent" }) });
  server = createServer(app.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  app.serve(server);
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await app?.stop();
  await runtime?.close();
});

async function call(route: string, key: string, body: unknown) {
  const res = await fetch(`${url}${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { data?: Record<string, unknown>; message?: string } };
}

async function initialized(): Promise<string> {
  const res = await call("/v1/transaction", merchant.testPublicKey, initializeBody({ amount: "10" }));
  expect(res.status).toBe(201);
  return res.body.data?.id as string;
}

describe("a new merchant in test mode, without a key", () => {
  it.each(COIN_NETWORKS.map((row) => [`${row.coin} on ${row.network}`, row] as const))("initiates %s", async (_, row) => {
    const id = await initialized();
    const currency = cryptoBySlug(row.coin);
    const res = await call(`/v1/transaction/${id}/pay`, merchant.testSecretKey, { currency_id: String(currency?.id), network: row.network });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const data = res.body.data as { payment_network: string; payment_address: string; payment_uri: string };
    expect(data.payment_network).toBe(row.network);
    expect(data.payment_address).toMatch(ADDRESS[CHAINS[row.network].family]);
    const chainId = CHAINS[row.network].test.chainId;
    if (row.contract) {
      // A token: the table's test contract, on the network's test chain (TRON's URI names no chain).
      expect(data.payment_uri).toContain(chainId === null ? "" : `${row.contract.test}@${chainId}/transfer?`);
    } else if (chainId !== null) {
      expect(data.payment_uri).toContain(`@${chainId}?value=`);
    }
  });

  it("is offered every coin × network by paymentOptions, with each network's fee level and token contract", async () => {
    const id = await initialized();
    const res = await call("/graphql", merchant.testSecretKey, {
      query: `query($id: ID!) { paymentOptions(transactionId: $id) { options { currency { slug } network { slug tokenContract explorerContractUrl } feeLevel } } }`,
      variables: { id },
    });
    expect(res.status).toBe(200);
    const options = (
      res.body.data as {
        paymentOptions: {
          options: {
            currency: { slug: string };
            network: { slug: string; tokenContract: string | null; explorerContractUrl: string | null };
            feeLevel: string;
          }[];
        };
      }
    ).paymentOptions.options;
    const listed = options.map((o) => [o.currency.slug, o.network.slug, o.feeLevel, o.network.tokenContract, o.network.explorerContractUrl]);
    const expected = COIN_NETWORKS.map((row) => [
      row.coin,
      row.network,
      CHAINS[row.network].feeLevel,
      row.contract?.test ?? null,
      row.contract ? explorerLink(row.network, false, "address", row.contract.test) : null,
    ]);
    expect([...listed].sort()).toEqual([...expected].sort());
  });

  it("refuses a network that does not carry the coin (400, naming the ones that do) and an unknown coin id (404), changing nothing", async () => {
    const id = await initialized();
    const wrong = await call(`/v1/transaction/${id}/pay`, merchant.testSecretKey, { currency_id: "8", network: "litecoin" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toEqual([
      { field: "network", message: "network must be one of ethereum, base, polygon, arbitrum, bsc for USDC (got 'litecoin')" },
    ]);
    const unknown = await call(`/v1/transaction/${id}/pay`, merchant.testSecretKey, { currency_id: "9", network: "base" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/currency/i);
    const again = await call(`/v1/transaction/${id}/pay`, merchant.testSecretKey, { currency_id: "8", network: "base" });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  });
});
