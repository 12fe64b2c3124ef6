// The operator's CLI sets a wallet with its key origin (issue 26): `merchant update --wallet
// 'LTC=[fingerprint/84h/1h/0h]vpub…'` stores the key and its origin apart; a malformed origin is
// refused with exit code 1 and the reason, and nothing changes.
import { HDKey } from "@scure/bip32";
import { describe, expect, it } from "vitest";
import { serializeKey } from "../../support/hd-keys.ts";
import { useCli } from "../../support/cli.ts";

const master = HDKey.fromMasterSeed(Uint8Array.from({ length: 32 }, (_, i) => 200 - i));
const FINGERPRINT = master.fingerprint.toString(16).padStart(8, "0");
const VPUB = serializeKey(master.derive("m/84'/1'/0'"), "vpub");

const paygate = useCli({ inProcess: true, migrated: true });

describe("paygate merchant update --wallet with a key origin", () => {
  it("takes the descriptor key expression, lists the key, and refuses a bad origin with the reason", async () => {
    const created = await paygate("merchant", "create", "--name", "Origin CLI", "--json");
    expect(created.code, created.stderr).toBe(0);
    const id = String(JSON.parse(created.stdout).id);

    const bad = await paygate("merchant", "update", id, "--wallet", `LTC=[${FINGERPRINT}/84h/1h]${VPUB}`, "--mode", "test");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      "LTC wallet: the key origin's path has 2 steps, but an account key is at depth 3: give the account's path, as 84'/0'/0'",
    );

    const set = await paygate("merchant", "update", id, "--wallet", `LTC=[${FINGERPRINT}/84h/1h/0h]${VPUB}`, "--mode", "test", "--json");
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout).wallets).toContainEqual(expect.objectContaining({ currency: "LTC", mode: "test", extendedPublicKey: VPUB }));
  });
});
