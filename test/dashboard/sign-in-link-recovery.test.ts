// Issue 46: a sole owner who lost its password (or never used its first link) was locked out: `user
// create` answered "email is taken" and no command issued a new link. `paygate user sign-in-link`
// issues one, shown once; using it sets a new password and ends the user's other sessions.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { startRuntime } from "../../src/runtime.ts";
import { useCli } from "../support/cli.ts";
import { TEST_PASSWORD } from "../support/dashboard.ts";

const paygate = useCli({ inProcess: true });

describe("paygate user sign-in-link", () => {
  it("gives a locked-out owner a new one-time link that sets a new password, audited as the operator's", async () => {
    const created = await paygate("merchant", "create", "--name", "Forgetful Shop", "--owner-email", "sole.owner@example.com", "--json");
    expect(created.code, created.stderr).toBe(0);
    const merchantId = Number(JSON.parse(created.stdout).id);
    const firstLink: string = JSON.parse(created.stdout).owner.signInUrl;

    const issued = await paygate("user", "sign-in-link", "--email", "Sole.Owner@example.com", "--json");
    expect(issued.code, issued.stderr).toBe(0);
    const answer = JSON.parse(issued.stdout);
    expect(answer).toMatchObject({
      email: "sole.owner@example.com",
      role: "owner",
      signInUrl: expect.stringMatching(/\/dashboard\/welcome#[\w-]{43}$/),
    });
    expect(answer.signInUrl).not.toBe(firstLink);
    const readable = await paygate("user", "sign-in-link", "--email", "sole.owner@example.com");
    expect(readable.stdout).toMatch(
      /^New one-time sign-in link for sole\.owner@example\.com \(usr_\w+\), owner\.\nShown once; it sets a new password and ends the user's other sessions, until \S+:\n {2}http\S+#[\w-]{43}\n$/,
    );

    const runtime = await startRuntime(loadConfig(paygate.env()));
    try {
      const token = String(answer.signInUrl).split("#")[1] as string;
      const signedIn = await runtime.gateway.accounts.useSignInLink(token, TEST_PASSWORD);
      expect(signedIn).toMatchObject({ kind: "signed_in", user: { email: "sole.owner@example.com", role: "owner" } });
      // Once only.
      await expect(runtime.gateway.accounts.useSignInLink(token, TEST_PASSWORD)).rejects.toThrow();
      const entries = await runtime.database.db.auditLogEntry.findMany({ where: { merchantId, action: "user.sign_in_link" } });
      expect(entries.map((e) => [e.actorKind, e.target])).toEqual([
        ["operator", "sole.owner@example.com (owner): a new one-time sign-in link"],
        ["operator", "sole.owner@example.com (owner): a new one-time sign-in link"],
      ]);
    } finally {
      await runtime.close();
    }
  });

  it("refuses an unknown e-mail (exit 1) and a missing one (exit 2), saying what to give", async () => {
    const unknown = await paygate("user", "sign-in-link", "--email", "nobody@example.com");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No dashboard user has the e-mail 'nobody@example.com'");
    const missing = await paygate("user", "sign-in-link");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--email EMAIL is required.");
  });
});
