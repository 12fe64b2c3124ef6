// What the TRON end-to-end files share: anvil started with TRON Nile's chain id stands for the Nile
// FullNode's JSON-RPC, with the 6-decimal test token at the hex form of Nile's USDT contract, minted to
// anvil's dev account, which pays with real `transfer` calls.
import { readFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { USDT_TRON_NILE_CONTRACT } from "../../src/core/networks.ts";
import { TRON_CHAIN_IDS } from "../../src/rails/chains/tron-rpc.ts";
import { tronAddressToHex } from "../../src/rails/wallets/tron.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";

export const TOKEN_HEX = tronAddressToHex(USDT_TRON_NILE_CONTRACT);
const compiled = JSON.parse(readFileSync(new URL("../rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6", { deployedBytecode: string }>;
};

/** The calldata of a contract call whose arguments are all 32-byte words (addresses, amounts). */
export function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).slice(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}

/** anvil on Nile's chain id with the test USDT at Nile's contract and 10^9 of it on the dev account. */
export async function startNileWithUsdt(): Promise<Anvil> {
  const anvil = await startAnvil({ chainId: TRON_CHAIN_IDS.nile });
  await anvil.setCode(TOKEN_HEX, compiled.contracts.TestToken6.deployedBytecode);
  await anvil.sendTransaction({ to: TOKEN_HEX, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
  return anvil;
}

/** Sends `units` of the test USDT from the dev account to a T-address (to its 20-byte hex form). */
export const payUsdt = (anvil: Anvil, tronAddress: string, units: bigint) =>
  anvil.sendTransaction({ to: TOKEN_HEX, data: abiCall("transfer(address,uint256)", tronAddressToHex(tronAddress), units) });
