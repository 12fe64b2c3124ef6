// The committed bytecode of src/rails/evm/contracts/ is what its Solidity source compiles to, with
// the pinned solc and settings of scripts/contracts-build.ts: neither changes without the other.
import { describe, expect, it } from "vitest";
import { compileContracts, SOURCES, staleFiles } from "../../../scripts/contracts-build.ts";

describe("the contracts' committed bytecode", () => {
  it("matches a fresh compilation of the sources, and a differing file is named", { timeout: 180_000 }, () => {
    const files = compileContracts();
    expect([...files.keys()].sort()).toEqual(Object.values(SOURCES).sort());
    expect(staleFiles(files)).toEqual([]);

    const forwarders = JSON.parse(files.get("Forwarders.json") ?? "{}") as { compiledWith: { solc: string }; contracts: Record<string, unknown> };
    expect(forwarders.compiledWith.solc).toMatch(/^0\.8\.37\+commit\./);
    expect(Object.keys(forwarders.contracts).sort()).toEqual(["DepositForwarder", "ForwarderFactory"]);

    const edited = new Map(files);
    edited.set("Forwarders.json", (files.get("Forwarders.json") ?? "").replace(/"0x60/, '"0x61'));
    expect(staleFiles(edited)).toEqual(["Forwarders.json"]);
  });
});
