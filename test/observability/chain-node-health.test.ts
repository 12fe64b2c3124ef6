// Each chain node's health where the operator reads it: /readyz's chain_nodes and /metrics'
// paygate_chain_node_healthy / _head, by place in the variable's list and host, never the URL. Two
// local JSON-RPC nodes (fake-evm-node.ts, real HTTP) serve Sepolia; the first answers 502. The
// watcher's start-up check probes both; the instance stays ready (nodes never make it unready).
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConfiguredApp, type PaygateApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logging.ts";
import { PaygateMetrics } from "../../src/observability/index.ts";
import { startRuntime, type Runtime } from "../../src/runtime.ts";
import { startFakeEvmNode, type FakeEvmNode } from "../rails/chains/fake-evm-node.ts";
import { createTestDatabase } from "../support/test-database.ts";
import { parseExposition } from "./exposition.ts";

let first: FakeEvmNode;
let second: FakeEvmNode;
let runtime: Runtime;
let app: PaygateApp;
let server: Server;
let url: string;
let dataDir: string;
let closeDb = async () => {};

beforeAll(async () => {
  [first, second] = await Promise.all([startFakeEvmNode(), startFakeEvmNode()]);
  for (const node of [first, second]) node.chainId = 11_155_111;
  first.failure = { status: 502, body: "Bad Gateway" };
  dataDir = mkdtempSync(path.join(tmpdir(), "paygate-node-health-"));
  const env: Record<string, string | undefined> = {
    PAYGATE_DATA_DIR: dataDir,
    PAYGATE_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
    PAYGATE_BTC_ESPLORA_URL: "none",
    PAYGATE_BTC_TEST_ESPLORA_URL: "none",
    PAYGATE_LTC_ESPLORA_URL: "none",
    PAYGATE_ETH_RPC_URL: "none",
    // Credentials in the first URL: they must appear nowhere.
    PAYGATE_ETH_TEST_RPC_URL: `${first.url.replace("http://", "http://user:secret@")}/v3/KEY,${second.url}`,
    PAYGATE_BSC_RPC_URL: "none",
    PAYGATE_BSC_TEST_RPC_URL: "none",
    PAYGATE_TRON_RPC_URL: "none",
    PAYGATE_TRON_TEST_RPC_URL: "none",
    // The networks of issue 43 (base, polygon, arbitrum): no public node either.
    PAYGATE_BASE_RPC_URL: "none",
    PAYGATE_BASE_TEST_RPC_URL: "none",
    PAYGATE_POLYGON_RPC_URL: "none",
    PAYGATE_POLYGON_TEST_RPC_URL: "none",
    PAYGATE_ARBITRUM_RPC_URL: "none",
    PAYGATE_ARBITRUM_TEST_RPC_URL: "none",
  };
  if (process.env.DATABASE_URL) {
    const db = await createTestDatabase();
    env.DATABASE_URL = db.url ?? undefined;
    closeDb = db.close;
  }
  const config = loadConfig(env);
  const metrics = new PaygateMetrics({ defaultMetrics: false });
  runtime = await startRuntime(config, { log: () => {}, metrics });
  app = await createConfiguredApp(config, runtime, { logger: createLogger({ level: "silent" }), metrics });
  server = await new Promise((resolve) => {
    const s = app.app.listen(0, "127.0.0.1", () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  runtime.startBackgroundJobs({ webhooks: false, expiry: false, watcher: true }); // its start-up check probes the nodes
});
afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await app?.stop();
  await runtime?.close();
  await closeDb();
  await Promise.all([first?.close(), second?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("chain node health", () => {
  it("shows each node by place and host in /readyz, the instance still ready", async () => {
    type Body = { status: string; chain_nodes: { network: string; mode: string; healthy: number; nodes: { state: string }[] }[] };
    let body: Body | undefined;
    await expect
      .poll(
        async () => {
          const res = await fetch(`${url}/readyz`);
          expect(res.status).toBe(200);
          body = (await res.json()) as Body;
          return body?.chain_nodes[0]?.nodes.map((n) => n.state);
        },
        { timeout: 15_000 },
      )
      .toEqual(["failing", "healthy"]);
    expect(body?.status).toBe("ok");
    const [pool] = body?.chain_nodes ?? [];
    expect(pool).toMatchObject({ network: "ethereum", mode: "test", backend: "evm", healthy: 1 });
    expect(pool?.nodes).toEqual([
      { node: 1, host: new URL(first.url).host, state: "failing", head: null, retry_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
      { node: 2, host: new URL(second.url).host, state: "healthy", head: 1000, retry_at: null },
    ]);
    expect(JSON.stringify(body)).not.toMatch(/secret|KEY|user/);
  });

  it("gauges each node in /metrics by network, mode and place, never the URL", async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const exposition = parseExposition(text);
    const labels = (node: string) => ({ network: "ethereum", mode: "test", backend: "evm", node });
    const healthy = exposition.families.get("paygate_chain_node_healthy");
    expect(healthy?.type).toBe("gauge");
    expect(healthy?.samples.map((s) => [s.labels, s.value])).toEqual([
      [labels("1"), 0],
      [labels("2"), 1],
    ]);
    expect(exposition.families.get("paygate_chain_node_head")?.samples.map((s) => [s.labels, s.value])).toEqual([[labels("2"), 1000]]);
    expect(text).not.toMatch(/secret|v3\/KEY/);
  });
});
