// The sweep tool (tools/sweep) as the merchant runs it, for the end-to-end tests: its own process,
// stdin piped in; secret files for its --key, --fee-key and --api-key-file in a folder of the test's;
// and the scene the sweep files start from (anvil, the service, three payments made final).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { HDKey } from "@scure/bip32";
import { addressOfPrivateKey } from "../../src/rails/evm/signing.ts";
import { toChecksumAddress } from "../../src/rails/wallets/addresses.ts";
import { USDT_SEPOLIA_CONTRACT } from "../../src/rails/wallets/networks.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { abiCall, mint, TEST_TOKENS } from "../support/forwarders.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { dueUnits } from "./evm.ts";
import { startE2eService, type E2eService, type Transaction } from "./service.ts";

const TOOL = path.resolve(import.meta.dirname, "../../tools/sweep/sweep.ts");

export function runSweepTool(args: string[], stdin = ""): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", TOOL, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** A file only its owner reads, in `dir`: its path. */
export function secretFile(dir: string, name: string, text: string): string {
  const at = path.join(dir, name);
  writeFileSync(at, text, { mode: 0o600 });
  return at;
}

/** The merchant's keys of a sweep test (a known seed) and the fee wallet's: each file makes its own. */
export function sweepKeys() {
  const seed = randomBytes(32);
  const master = HDKey.fromMasterSeed(seed);
  const feeKey = randomBytes(32);
  return {
    seed,
    /** The accounts merchantTestKeys gives the service: ETH m/44'/60'/0', USDT m/44'/60'/1'. */
    ethAccount: master.derive("m/44'/60'/0'"),
    usdtAccount: master.derive("m/44'/60'/1'"),
    destination: toChecksumAddress(`0x${randomBytes(20).toString("hex")}`),
    feeKey,
    feeWallet: addressOfPrivateKey(feeKey),
  };
}

/** An account key as the tool reads it (tprv). */
export const tprv = (node: HDKey) => serializeKey(node, "tpub", "private");

export const SWEEP_CHAIN_ID = 31_337;
export const SWEEP_REQUIRED = 2;
export const SWEEP_FINALITY = 3;

/** What a sweep test starts from: one anvil with a USDT-like token, the service, and three payments made, SUCCESSFUL and final. */
export interface SweepScene {
  anvil: Anvil;
  service: E2eService;
  /** A folder of the test's for the tool's secret files. */
  dir: string;
  usdt: Transaction[];
  eth: Transaction;
  /** The hash of the last USDT payment. */
  paymentTx: string;
}

/**
 * Two USDT payments (a token whose `transfer` returns nothing) and one ETH payment to fresh addresses of
 * the merchant's keys, paid, SUCCESSFUL and past the finality depth; the fee wallet holds 1 ETH.
 */
export async function startSweepScene(keys: ReturnType<typeof sweepKeys>, folder: string, env: Record<string, string> = {}): Promise<SweepScene> {
  const dir = mkdtempSync(path.join(tmpdir(), folder));
  const anvil = await startAnvil({ chainId: SWEEP_CHAIN_ID });
  await anvil.setCode(USDT_SEPOLIA_CONTRACT, (TEST_TOKENS.contracts.UsdtLike as { deployedBytecode: string }).deployedBytecode);
  await mint(anvil, USDT_SEPOLIA_CONTRACT, DEV_ACCOUNT, 10n ** 15n);
  await anvil.sendTransaction({ to: keys.feeWallet, value: 10n ** 18n });
  const service = await startE2eService(
    {
      PAYGATE_ETH_TEST_RPC_URL: anvil.url,
      PAYGATE_ETH_TEST_CHAIN_ID: String(SWEEP_CHAIN_ID),
      PAYGATE_CONFIRMATIONS_ETH: String(SWEEP_REQUIRED),
      PAYGATE_FINALITY_ETH: String(SWEEP_FINALITY),
      // A key's role is read at each request: a viewer's key is refused at once.
      PAYGATE_CREDENTIAL_CACHE_MS: "0",
      ...env,
    },
    ["ETH", "USDT"],
    { seed: keys.seed },
  );
  const usdt = [await service.initiate("USDT", "25"), await service.initiate("USDT", "40")];
  const eth = await service.initiate("ETH", "30");
  let paymentTx = "";
  for (const t of usdt)
    paymentTx = await anvil.sendTransaction({
      to: USDT_SEPOLIA_CONTRACT,
      data: abiCall("transfer(address,uint256)", t.payment_address, dueUnits(t)),
    });
  await anvil.sendTransaction({ to: eth.payment_address, value: dueUnits(eth) });
  await anvil.mine(SWEEP_REQUIRED);
  for (const t of [...usdt, eth]) await service.until(t.id, (x) => x.status === "SUCCESSFUL", `${t.id} SUCCESSFUL`);
  await untilFinal(
    anvil,
    service,
    [...usdt, eth].map((t) => t.id),
  );
  return { anvil, service, dir, usdt, eth, paymentTx };
}

/** Mines past the finality depth and waits until the watcher has marked every payment final. */
export async function untilFinal(anvil: Anvil, service: E2eService, ids: string[]): Promise<void> {
  await anvil.mine(SWEEP_FINALITY + 1);
  const db = service.runtime.database.db;
  for (let waited = 0; ; waited += 100) {
    const rows = await db.transaction.findMany({ where: { id: { in: ids } }, select: { finalAt: true } });
    if (rows.length === ids.length && rows.every((r) => r.finalAt !== null)) return;
    if (waited > 20_000) throw new Error(`not final within 20 s: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
