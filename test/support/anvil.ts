// A real EVM node for the tests: anvil (Foundry), from the npm package @foundry-rs/anvil-linux-amd64
// (an optionalDependency, as it exists for Linux x64 only; the binary ships inside it). Where it is
// missing, startAnvil fails saying so: the tests on anvil fail rather than pass unseen. Each call starts one anvil on a free 127.0.0.1 port
// with the chain id asked, waits until it answers, and gives a small JSON-RPC client for what the
// tests do to a chain: mine, snapshot and revert, reorganise, put code at an address, send coins
// and contract calls from its unlocked dev accounts. Stop it in afterAll.
//
// Anvil mines a block for each transaction sent (automine; sendTransaction waits for it), with a
// timestamp of its own clock.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { dirname, join } from "node:path";

/** The first of anvil's dev accounts (unlocked, 10000 ETH each). */
export const DEV_ACCOUNT = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

export interface Anvil {
  url: string;
  chainId: number;
  /** The unlocked dev accounts. */
  accounts: string[];
  /** One JSON-RPC call; rejects with the node's error message. */
  send(method: string, params?: unknown[]): Promise<unknown>;
  blockNumber(): Promise<number>;
  /** Mines `n` empty blocks (anvil_mine). */
  mine(n?: number): Promise<void>;
  /** evm_snapshot: an id for revert. */
  snapshot(): Promise<string>;
  /** evm_revert to a snapshot: the blocks after it are gone. */
  revert(id: string): Promise<void>;
  /** anvil_reorg: replaces the last `depth` blocks by as many empty ones (other hashes). */
  reorg(depth: number): Promise<void>;
  /** anvil_setCode: puts runtime bytecode at `address`. */
  setCode(address: string, code: string): Promise<void>;
  /** eth_sendTransaction from a dev account; the transaction hash once its block is mined. `gas` skips the estimate (which refuses a call that reverts). */
  sendTransaction(tx: { from?: string; to: string; value?: bigint; data?: string; gas?: bigint }): Promise<string>;
  /** The block number a mined transaction is in. */
  blockOf(txHash: string): Promise<number>;
  /** Stops the process where it is (SIGSTOP): it holds its connections and answers nothing, until resume (SIGCONT). */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

const ANVIL_PACKAGE = "@foundry-rs/anvil-linux-amd64";

/** The anvil binary of the optional package; an error saying what is missing and why when it is not installed. */
export function anvilBinary(): string {
  let binary: string | undefined;
  try {
    binary = join(dirname(createRequire(import.meta.url).resolve(`${ANVIL_PACKAGE}/package.json`)), "bin", "anvil");
  } catch {
    // not installed: said below
  }
  if (binary === undefined || !existsSync(binary)) {
    const platform = `${process.platform}-${process.arch}`;
    throw new Error(
      `anvil is missing: ${binary ?? `the optional dependency ${ANVIL_PACKAGE}`} is not installed, and the tests on a real EVM node need it. ` +
        (platform === "linux-x64"
          ? "Run npm ci (without --omit=optional)."
          : `npm installs it on Linux x64 only, and this machine is ${platform}: run these tests on Linux x64 (as CI does).`),
    );
  }
  return binary;
}

/**
 * Starts anvil on a free port; tries another port if the one picked was taken meanwhile. `hardfork`:
 * an older chain's rules (`berlin`: blocks without a base fee, before EIP-1559).
 */
export async function startAnvil(options: { chainId: number; hardfork?: string; args?: readonly string[] }): Promise<Anvil> {
  const anvil = anvilBinary();
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const hardfork = options.hardfork === undefined ? [] : ["--hardfork", options.hardfork];
    const child = spawn(
      anvil,
      ["--host", "127.0.0.1", "--port", String(port), "--chain-id", String(options.chainId), "--silent", ...hardfork, ...(options.args ?? [])],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitUntilAnswering(
        url,
        exited,
        () => stderr,
        () => child.pid !== undefined && listensOn(child.pid, port),
      );
      return await anvilAt(url, options.chainId, child, exited);
    } catch (error) {
      lastError = error;
      child.kill("SIGKILL");
      await exited;
    }
  }
  throw lastError;
}

async function anvilAt(url: string, chainId: number, child: ChildProcess, exited: Promise<number | null>): Promise<Anvil> {
  let id = 0;
  const send = async (method: string, params: unknown[] = []): Promise<unknown> => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const body = (await response.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`anvil ${method}: ${body.error.message}`);
    return body.result;
  };
  const anvil: Anvil = {
    url,
    chainId,
    accounts: (await send("eth_accounts")) as string[],
    send,
    blockNumber: async () => Number(await send("eth_blockNumber")),
    mine: async (n = 1) => {
      await send("anvil_mine", [`0x${n.toString(16)}`]);
    },
    snapshot: async () => String(await send("evm_snapshot")),
    revert: async (snapshot) => {
      if ((await send("evm_revert", [snapshot])) !== true) throw new Error(`anvil evm_revert: snapshot ${snapshot} not found`);
    },
    reorg: async (depth) => {
      await send("anvil_reorg", [depth, []]);
    },
    setCode: async (address, code) => {
      await send("anvil_setCode", [address, code]);
    },
    sendTransaction: async ({ from = DEV_ACCOUNT, to, value, data, gas }) => {
      const quantity = (n: bigint | undefined) => (n === undefined ? undefined : `0x${n.toString(16)}`);
      const txHash = String(await send("eth_sendTransaction", [{ from, to, value: quantity(value), data, gas: quantity(gas) }]));
      // Anvil answers with the hash, then mines its block: wait for it, so the test goes on from there.
      for (let waited = 0; (await send("eth_getTransactionReceipt", [txHash])) === null; waited += 10) {
        if (waited >= 10_000) throw new Error(`anvil: ${txHash} was not mined within 10 s`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return txHash;
    },
    blockOf: async (txHash) => {
      const receipt = (await send("eth_getTransactionReceipt", [txHash])) as { blockNumber: string } | null;
      if (receipt === null) throw new Error(`anvil: ${txHash} is not mined`);
      return Number(receipt.blockNumber);
    },
    pause: () => {
      child.kill("SIGSTOP");
    },
    resume: () => {
      child.kill("SIGCONT");
    },
    stop: async () => {
      child.kill("SIGCONT"); // a paused process would keep the SIGTERM pending
      child.kill("SIGTERM");
      await exited;
    },
  };
  return anvil;
}

/**
 * Whether process `pid` holds the listening socket of 127.0.0.1:`port` (Linux's /proc, where anvil
 * runs). The port is picked free and then handed to anvil: meanwhile another file's node may take it,
 * and an answer on it is then that node's, which this one's pause would not stop.
 */
function listensOn(pid: number, port: number): boolean {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const inodes = new Set(
    readFileSync("/proc/net/tcp", "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[1] === local && fields[3] === "0A") // 0A: LISTEN
      .map((fields) => `socket:[${fields[9]}]`),
  );
  if (inodes.size === 0) return false;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        return false; // closed meanwhile
      }
    });
  } catch {
    return false; // the process is gone
  }
}

async function waitUntilAnswering(url: string, exited: Promise<number | null>, stderr: () => string, ours: () => boolean): Promise<void> {
  let gone: number | null | undefined;
  void exited.then((code) => {
    gone = code;
  });
  for (let waited = 0; waited < 10_000; waited += 50) {
    if (gone !== undefined) throw new Error(`anvil exited (${gone}) before answering: ${stderr()}`);
    // Only this anvil's answer counts: until it listens on the port, another process may.
    if (!ours()) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "eth_chainId", params: [] }),
      });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`anvil did not answer on ${url} within 10 s: ${stderr()}`);
}

/** A free port on 127.0.0.1 (the test nodes' helpers share it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
