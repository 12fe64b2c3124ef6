// Dashboard passwords: scrypt with a per-password salt and its parameters stored with the hash.
import { describe, expect, it } from "vitest";
import { hashPassword, verifyNothing, verifyPassword } from "../../src/core/dashboard/passwords.ts";

describe("dashboard passwords", () => {
  it("hash with scrypt, a random salt and the parameters in the hash, and verify", async () => {
    const [a, b] = await Promise.all([hashPassword("correct horse battery staple"), hashPassword("correct horse battery staple")]);
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(a).not.toBe(b); // salted
    expect(await verifyPassword("correct horse battery staple", a)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", a)).toBe(false);
    expect(await verifyPassword("", b)).toBe(false);
  });

  it("treat the same text in two Unicode forms as one password (NFC)", async () => {
    const hash = await hashPassword("caf\u00e9 au lait please");
    expect(await verifyPassword("cafe\u0301 au lait please", hash)).toBe(true);
  });

  it("refuse a hash of an unknown form instead of throwing, and spend a check's time on nothing", async () => {
    for (const stored of ["", "plain", "bcrypt$x", "scrypt$0$8$1$AAAA$AAAA", "scrypt$abc$8$1$AAAA$AAAA"]) {
      expect(await verifyPassword("anything at all", stored)).toBe(false);
    }
    expect(await verifyNothing("anything at all")).toBe(false);
  });
});
