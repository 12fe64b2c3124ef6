// The credential cache: found keys are remembered for a while, unknown keys never.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Credentials } from "../../src/core/credentials.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

describe("Credentials", () => {
  it("remembers a found key for its time to live, then sees the change", async () => {
    const m = await t.merchant({ name: "Cached" });
    const credentials = new Credentials(t.stores.credentials, { cacheMs: 300 });
    expect((await credentials.authenticatePublic({ publicKey: m.testPublicKey })).merchant.id).toBe(m.id);
    await t.db.merchant.update({ where: { id: m.id }, data: { active: false } });
    // Within the time to live the remembered row answers.
    expect((await credentials.authenticatePublic({ publicKey: m.testPublicKey })).merchant.active).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 350));
    await expect(credentials.authenticatePublic({ publicKey: m.testPublicKey })).rejects.toMatchObject({
      code: "not_found",
      reason: "merchant_inactive",
    });
  });

  it("does not remember unknown keys, and never mixes kinds", async () => {
    const m = await t.merchant({ name: "Fresh" });
    const credentials = new Credentials(t.stores.credentials, { cacheMs: 60_000 });
    await expect(credentials.authenticateSecret("sec_test_unknown")).rejects.toMatchObject({ code: "unauthenticated" });
    expect((await credentials.authenticateSecret(m.testSecretKey)).keyKind).toBe("SECRET");
    // A cached secret key is still not a public key.
    await expect(credentials.authenticatePublic({ publicKey: m.testSecretKey })).rejects.toMatchObject({ code: "not_found" });
  });
});
