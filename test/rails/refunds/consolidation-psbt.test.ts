// The consolidation PSBT (issue 40; src/rails/refunds/psbt.ts, buildConsolidationPsbt), as a wallet
// reads it: outputs of several wallets' addresses, each input with its own key origin, one output to
// the destination, the fee out of the total; dust refused. Pure: no database, no node.
import { HDKey } from "@scure/bip32";
import { Transaction } from "@scure/btc-signer";
import { base64, bech32 } from "@scure/base";
import { describe, expect, it } from "vitest";
import { buildConsolidationPsbt, dustOf, feeFor, outputScript } from "../../../src/rails/refunds/psbt.ts";
import { buildCoinNetworkTable, type UtxoNetwork } from "../../../src/rails/wallets/networks.ts";

const master = HDKey.fromMasterSeed(Uint8Array.from({ length: 32 }, (_, i) => i + 7));
const account = master.derive("m/84'/1'/0'");
const origin = { fingerprint: master.fingerprint.toString(16).padStart(8, "0"), path: [84 + 0x80000000, 1 + 0x80000000, 0x80000000] };
const regtest = buildCoinNetworkTable({ utxoTestChains: { LTC: "regtest" } }).get("LTC:litecoin")?.test as UtxoNetwork;
const address = bech32.encode(regtest.bech32Hrp, [0, ...bech32.toWords(new Uint8Array(20).fill(9))]);
const txid = (n: number) => n.toString(16).padStart(64, "0");

describe("buildConsolidationPsbt", () => {
  it("spends every output to the destination with each input's key origin, the fee out of the total, and keeps its id when signed", () => {
    const outputs = [3, 9].map((index, n) => ({ txid: txid(n + 1), vout: n, value: 1_000_000n, account, keyOrigin: origin, derivationIndex: index }));
    const built = buildConsolidationPsbt({ network: regtest, outputs, destination: address, feeRate: "2.5" });
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    const script = outputScript(regtest, address);
    const fee = feeFor(42 + 2 * (41 * 4 + 109) + (8 + 1 + script.length) * 4, "2.5");
    expect([built.total, built.fee, built.amount]).toEqual([2_000_000n, fee, 2_000_000n - fee]);
    const tx = Transaction.fromPSBT(base64.decode(built.psbt));
    expect(tx.inputsLength).toBe(2);
    expect(tx.outputsLength).toBe(1);
    expect([0, 1].map((i) => tx.getInput(i).bip32Derivation?.[0]?.[1].path)).toEqual([
      [...origin.path, 0, 3],
      [...origin.path, 0, 9],
    ]);
    expect(tx.id).toBe(built.txid);
    expect(tx.sign(master as Parameters<Transaction["sign"]>[0] & HDKey)).toBe(2);
    tx.finalize();
    expect(tx.id).toBe(built.txid);
  });

  it("refuses what would leave the destination less than its dust limit", () => {
    const built = buildConsolidationPsbt({
      network: regtest,
      outputs: [{ txid: txid(1), vout: 0, value: 1_000n, account, keyOrigin: null, derivationIndex: 0 }],
      destination: address,
      feeRate: "10",
    });
    expect(built).toEqual({ ok: false, problem: "dust", total: 1_000n, fee: 1_100n, dust: dustOf(outputScript(regtest, address)) });
  });
});
