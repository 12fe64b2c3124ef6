// A real UTXO node for the tests: Litecoin Core (`apt-get install -y litecoind`; .ci/run installs it),
// whose RPC is Bitcoin Core's. Each call starts one regtest node in a temporary datadir on free
// 127.0.0.1 ports, waits until its RPC answers, and gives a small client and a funded wallet
// ("funder", 101 blocks mined to it: one coinbase spendable). Stop it in afterAll.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./anvil.ts";

export interface Litecoind {
  /** http://user:password@127.0.0.1:port */
  url: string;
  rpcUser: string;
  rpcPassword: string;
  datadir: string;
  /** One call; `wallet` names the wallet endpoint. Rejects with the node's message. */
  send(method: string, params?: unknown[], wallet?: string): Promise<unknown>;
  /** Mines `n` blocks to the funder wallet; their hashes, once every wallet has taken them in. */
  mine(n?: number): Promise<string[]>;
  /** Returns once every wallet of the node has taken in what the node has (blocks, mempool). */
  walletsCaughtUp(): Promise<void>;
  /** A fresh regtest address (rltc1…) of a wallet of the node's own. */
  newAddress(wallet?: string): Promise<string>;
  /** Stops the node, keeping its datadir: it goes away (connections are refused) until startAgain. */
  halt(): Promise<void>;
  /** Starts the halted node again on its datadir and ports, with the funder wallet loaded. */
  startAgain(): Promise<void>;
  stop(): Promise<void>;
}

export const FUNDER = "funder";

export function litecoindBinary(): string {
  try {
    return execFileSync("sh", ["-c", "command -v litecoind"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error("litecoind is missing: the tests on a real UTXO node need Litecoin Core (apt-get install -y litecoind; .ci/run installs it)");
  }
}

/**
 * `args`: more command-line options for the node (e.g. a second `-rpcauth` user with an `-rpcwhitelist`).
 * `replacing`: a node started in its place, at its URL (RPC port and password) on a new datadir.
 */
export async function startLitecoind(options: { args?: readonly string[]; replacing?: Litecoind } = {}): Promise<Litecoind> {
  const binary = litecoindBinary();
  const datadir = await mkdtemp(join(tmpdir(), "paygate-litecoind-"));
  const rpcUser = "paygate";
  const rpcPassword = options.replacing?.rpcPassword ?? `pw-${randomBytes(12).toString("hex")}`;
  const [rpcPort, port] = [options.replacing ? Number(new URL(options.replacing.url).port) : await freePort(), await freePort()];
  const args = [
    "-regtest",
    `-datadir=${datadir}`,
    `-rpcport=${rpcPort}`,
    `-port=${port}`,
    "-rpcbind=127.0.0.1",
    "-rpcallowip=127.0.0.1",
    "-listen=0",
    "-txindex=1",
    "-fallbackfee=0.0001",
    "-mempoolreplacement=1",
    "-daemon=0",
    // rpcauth (not rpcpassword), so the node also writes its .cookie file.
    `-rpcauth=${rpcAuth(rpcUser, rpcPassword)}`,
    ...(options.args ?? []),
  ];
  const launch = () => {
    const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    return { child, exited, stderr: () => stderr };
  };
  let running = launch();
  const base = `http://127.0.0.1:${rpcPort}`;
  let id = 0;
  const send = async (method: string, params: unknown[] = [], wallet?: string): Promise<unknown> => {
    const response = await fetch(wallet ? `${base}/wallet/${wallet}` : base, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Basic ${Buffer.from(`${rpcUser}:${rpcPassword}`).toString("base64")}` },
      body: JSON.stringify({ jsonrpc: "1.0", id: ++id, method, params }),
    });
    const body = (await response.json()) as { result?: unknown; error?: { message: string } | null };
    if (body.error) throw new Error(`litecoind ${method}: ${body.error.message}`);
    return body.result;
  };
  await waitUntilAnswering(send, running.exited, running.stderr, running.child);
  await send("createwallet", [FUNDER]);
  const node: Litecoind = {
    url: `http://${rpcUser}:${rpcPassword}@127.0.0.1:${rpcPort}`,
    rpcUser,
    rpcPassword,
    datadir,
    send,
    newAddress: async (wallet = FUNDER) => String(await send("getnewaddress", ["", "bech32"], wallet)),
    mine: async (n = 1) => {
      const blocks = (await send("generatetoaddress", [n, await node.newAddress()])) as string[];
      await node.walletsCaughtUp();
      return blocks;
    },
    // Wallets take in blocks and mempool transactions through the node's validation queue, a moment
    // behind; Bitcoin Core's functional tests wait for it with this RPC, and so do these.
    walletsCaughtUp: async () => {
      await send("syncwithvalidationinterfacequeue");
    },
    halt: async () => {
      running.child.kill("SIGTERM");
      await running.exited;
    },
    startAgain: async () => {
      running = launch();
      await waitUntilAnswering(send, running.exited, running.stderr, running.child);
      await send("loadwallet", [FUNDER]);
    },
    stop: async () => {
      running.child.kill("SIGTERM");
      await running.exited;
      await rm(datadir, { recursive: true, force: true });
    },
  };
  await node.mine(101);
  return node;
}

/** -rpcauth's value: user:salt$HMAC-SHA256(key salt, password), as share/rpcauth/rpcauth.py writes it. */
export function rpcAuth(user: string, password: string): string {
  const salt = randomBytes(16).toString("hex");
  return `${user}:${salt}$${createHmac("sha256", salt).update(password).digest("hex")}`;
}

async function waitUntilAnswering(
  send: (method: string) => Promise<unknown>,
  exited: Promise<number | null>,
  stderr: () => string,
  child: ChildProcess,
): Promise<void> {
  let gone: number | null | undefined;
  void exited.then((code) => {
    gone = code;
  });
  for (let waited = 0; waited < 20_000; waited += 50) {
    if (gone !== undefined) throw new Error(`litecoind exited (${gone}) before answering: ${stderr()}`);
    try {
      await send("getblockchaininfo");
      return;
    } catch {
      // not listening yet, or still warming up
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGKILL");
  throw new Error(`litecoind did not answer within 20 s: ${stderr()}`);
}
