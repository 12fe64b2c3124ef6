// docs/own-node.md against the code and a real node: its `rpcwhitelist=` lines name exactly the Core RPC
// methods paygate calls (read from the source, so a method added to the code and not to the page fails
// here), and a Litecoin Core regtest node started with that whitelist (and `-rpcwhitelistdefault=0`)
// lets a watcher import an address and find a payment to it, while refusing a method outside the list
// (HTTP 403). No database: this file runs once per CI run (vitest.config.ts).
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreRpcClient } from "../../../src/rails/chains/core-rpc.ts";
import { CORE_NODE_VARIABLES } from "../../../src/rails/chains/config.ts";
import { FUNDER, rpcAuth, startLitecoind, type Litecoind } from "../../support/litecoind.ts";

const ROOT = join(import.meta.dirname, "../../..");
const CORE_CLIENT = "src/rails/chains/core-rpc.ts";

/** Every `rpcwhitelist=user:m1,m2,…` line of the page: user and methods. */
function docWhitelists(): { user: string; methods: string[] }[] {
  const page = readFileSync(join(ROOT, "docs/own-node.md"), "utf8");
  return [...page.matchAll(/^rpcwhitelist=([^:\s]+):(\S+)\s*$/gm)].map((m) => ({
    user: m[1] as string,
    methods: (m[2] as string).split(","),
  }));
}

/**
 * The Core RPC methods `source` calls through `receiver` (`this`, `client.client`): the first argument
 * of `.call(` / `.batch(`, a string literal, or a `const` whose initializer names them (a ternary of
 * literals, as `importdescriptors` / `importmulti`). An argument it cannot resolve fails the test.
 */
function calledMethods(source: string, receiver: string, file: string): Set<string> {
  const methods = new Set<string>();
  const escaped = receiver.replace(/\./g, "\\.");
  const calls = new RegExp(`${escaped}\\.(?:call|batch)\\(\\s*([^,)]+)`, "g");
  for (const [, argument = ""] of source.matchAll(calls)) {
    const literal = /^"([a-z][a-z0-9_]*)"$/.exec(argument.trim());
    if (literal) {
      methods.add(literal[1] as string);
      continue;
    }
    const name = argument.trim();
    const definition = new RegExp(`const ${name}\\s*=\\s*([^;]+);`).exec(source);
    const names = definition ? [...(definition[1] as string).matchAll(/"([a-z][a-z0-9_]*)"/g)].map((m) => m[1] as string) : [];
    if (names.length === 0) throw new Error(`${file}: cannot tell which method ${receiver}.call/batch(${name}, …) calls`);
    for (const method of names) methods.add(method);
  }
  return methods;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

/** What paygate asks a Core node: the client's own calls, and every other file's calls through a Core client (`client.client`, kind "core"). */
function codeMethods(): { methods: Set<string>; files: string[] } {
  const methods = calledMethods(readFileSync(join(ROOT, CORE_CLIENT), "utf8"), "this", CORE_CLIENT);
  const files = [CORE_CLIENT];
  for (const file of sourceFiles("src")) {
    if (file === CORE_CLIENT) continue;
    const source = readFileSync(join(ROOT, file), "utf8");
    if (!/client\.client\.(?:call|batch)\(/.test(source)) continue;
    files.push(file);
    for (const method of calledMethods(source, "client.client", file)) methods.add(method);
  }
  return { methods, files };
}

const sorted = (methods: Iterable<string>) => [...methods].sort();

describe("docs/own-node.md's rpcwhitelist", () => {
  it("names exactly the Core RPC methods the code calls, in every example", () => {
    const { methods, files } = codeMethods();
    // The extraction itself: the pass's, the wallet's and the refunds' calls are found.
    expect(files).toContain("src/rails/refunds/index.ts");
    for (const method of ["getblockchaininfo", "listsinceblock", "importdescriptors", "importmulti", "getmempoolentry", "gettransaction"]) {
      expect(methods).toContain(method);
    }
    const lines = docWhitelists();
    expect(lines.length).toBeGreaterThanOrEqual(2); // bitcoin.conf and litecoin.conf
    for (const { methods: listed } of lines) expect(sorted(listed)).toEqual(sorted(methods));
  });
});

describe("the whitelist on a real node (Litecoin Core regtest)", () => {
  const user = "paygate-watch";
  const password = `pw-${randomBytes(12).toString("hex")}`;
  const methods = (docWhitelists()[0]?.methods ?? []).join(",");
  let node: Litecoind;
  let url: string;
  beforeAll(async () => {
    node = await startLitecoind({
      args: [`-rpcauth=${rpcAuth(user, password)}`, `-rpcwhitelist=${user}:${methods}`, "-rpcwhitelistdefault=0"],
    });
    url = node.url.replace(`${node.rpcUser}:${node.rpcPassword}@`, `${user}:${password}@`);
  });
  afterAll(() => node?.stop());

  /** One request as the whitelisted user: the HTTP status. */
  async function status(method: string, params: unknown[] = []): Promise<number> {
    const response = await fetch(new URL(url).origin, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` },
      body: JSON.stringify({ jsonrpc: "1.0", id: 1, method, params }),
    });
    await response.text();
    return response.status;
  }

  it("is enough for a watcher pass: the wallet created, an address imported, a payment found at 0 and 1 confirmations", async () => {
    const client = new CoreRpcClient({ url, chain: "regtest", timeoutMs: 10_000, variables: CORE_NODE_VARIABLES.LTC.test, wallet: "paygate" });
    expect(await client.checkNode()).toMatch(/^chain regtest, (descriptor|legacy) watch-only wallet "paygate"$/);
    const address = await node.newAddress();
    // Paid before the watcher imports it: the import's mempool read (getrawmempool, getrawtransaction) finds it.
    const txid = String(await node.send("sendtoaddress", [address, 0.5], FUNDER));
    const since = new Date();
    client.beginPass([{ address, since }]);
    const first = await client.receiptsTo(address, { since });
    expect(first.map((r) => [r.txHash, r.amount.toString(), r.confirmations])).toEqual([[txid, "0.5", 0]]);
    await node.mine(1);
    client.beginPass([{ address, since }]);
    const second = await client.receiptsTo(address, { since });
    expect(second.map((r) => [r.txHash, r.amount.toString(), r.confirmations])).toEqual([[txid, "0.5", 1]]);
    // The balance (listunspent) and the refunds' reads (estimatesmartfee, getrawtransaction, gettransaction).
    expect((await client.balance(address)).toString()).toBe("0.5");
    await client.call("estimatesmartfee", [6]);
    expect(typeof (await client.call("getrawtransaction", [txid]))).toBe("string");
    await client.call("gettransaction", [txid, true], true);
  });

  it("lets every listed method through and refuses one outside the list with HTTP 403", async () => {
    for (const method of methods.split(",")) expect({ method, status: await status(method) }).not.toEqual({ method, status: 403 });
    expect(await status("getbalance")).toBe(403);
    expect(await status("stop")).toBe(403);
    // The node's own user, without a whitelist, is not restricted (rpcwhitelistdefault=0).
    expect(await node.send("getbalance", [], FUNDER)).toBeGreaterThan(0);
    const client = new CoreRpcClient({ url, chain: "regtest", timeoutMs: 10_000, variables: CORE_NODE_VARIABLES.LTC.test, wallet: "paygate" });
    await expect(client.call("getbalance", [], true)).rejects.toThrow(
      /getbalance: the node refused the credentials \(HTTP 403\); check PAYGATE_LTC_TEST_NODE_URL/,
    );
  });
});
