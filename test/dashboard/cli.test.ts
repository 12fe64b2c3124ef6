// `paygate user create`: a dashboard user made by the operator, with a one-time sign-in link built
// on PAYGATE_PUBLIC_URL, or with a password read from standard input; and `paygate merchant create
// --owner-email`, the merchant with its first user, an owner (issue 28).
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run.ts";
import { itRefusesBadArgs, useCli } from "../support/cli.ts";

const paygate = useCli({ inProcess: true, migrated: true });

/** runCli with standard input (the support's runner has none). */
async function withStdin(stdin: string, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    env: { ...paygate.env(), PAYGATE_PUBLIC_URL: "https://pay.example.com" },
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    stdin: Readable.from([stdin]),
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

describe("paygate user create", () => {
  let merchantId = 0;

  it("prints a one-time sign-in link on PAYGATE_PUBLIC_URL", async () => {
    const merchant = await paygate("merchant", "create", "--name", "Acme Stores", "--json");
    merchantId = JSON.parse(merchant.stdout).id;
    const res = await withStdin("", "user", "create", "--merchant", String(merchantId), "--email", "Ada@Example.com", "--role", "owner");
    expect(res).toMatchObject({ code: 0, stderr: "" });
    expect(res.stdout).toMatch(/^Created dashboard user ada@example\.com \(usr_[0-9A-Za-z]{20}\), owner of merchant \d+\.\n/);
    expect(res.stdout).toMatch(/\n {2}https:\/\/pay\.example\.com\/dashboard\/welcome#[0-9A-Za-z]{43}\n$/);
  });

  it("takes the password from standard input with --password-stdin, as JSON", async () => {
    const res = await withStdin(
      "a long enough password\n",
      "user",
      "create",
      "--merchant",
      String(merchantId),
      "--email",
      "dev@example.com",
      "--role",
      "developer",
      "--password-stdin",
      "--json",
    );
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ email: "dev@example.com", role: "developer", hasPassword: true, merchantId, signInUrl: null });
  });

  it("refuses a short password, a taken e-mail and an unknown merchant (exit 1, saying why)", async () => {
    const short = await withStdin(
      "short\n",
      "user",
      "create",
      "--merchant",
      String(merchantId),
      "--email",
      "s@example.com",
      "--role",
      "viewer",
      "--password-stdin",
    );
    expect(short).toMatchObject({ code: 1, stdout: "" });
    expect(short.stderr).toBe("paygate: password is too short: use at least 10 characters\n");
    const taken = await withStdin("", "user", "create", "--merchant", String(merchantId), "--email", "ADA@example.com", "--role", "viewer");
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/^paygate: email is taken/);
    const unknown = await withStdin("", "user", "create", "--merchant", "9999", "--email", "u@example.com", "--role", "viewer");
    expect(unknown).toMatchObject({ code: 1, stderr: "paygate: No merchant with id 9999\n" });
  });

  itRefusesBadArgs(paygate, [
    ["a missing --merchant", ["user", "create", "--email", "a@example.com", "--role", "owner"], /--merchant ID is required/],
    ["a missing --email", ["user", "create", "--merchant", "1", "--role", "owner"], /--email EMAIL is required/],
    [
      "an unknown role",
      ["user", "create", "--merchant", "1", "--email", "a@example.com", "--role", "admin"],
      /--role must be one of owner, developer, viewer; got 'admin'/,
    ],
  ]);
});

const LINK = /https:\/\/pay\.example\.com\/dashboard\/welcome#[0-9A-Za-z]{43}/;

describe("paygate merchant create --owner-email", () => {
  it("prints the merchant's keys and its owner's one-time sign-in link", async () => {
    const res = await withStdin("", "merchant", "create", "--name", "Acme Stores", "--owner-email", "Owner@Acme.example");
    expect(res).toMatchObject({ code: 0, stderr: "" });
    expect(res.stdout).toMatch(/^Created merchant \d+ "Acme Stores"/);
    expect(res.stdout).toContain("test secret key   sec_test_");
    expect(res.stdout).toMatch(
      /\nOwner owner@acme\.example: a one-time sign-in link, shown once; it sets the password until \d{4}-\d\d-\d\dT[\d:.]+Z:\n {2}/,
    );
    expect(res.stdout.trimEnd().split("\n").at(-1)).toMatch(new RegExp(`^ {2}${LINK.source}$`));
  });

  it("adds the owner to the JSON, and the owner is a user of that merchant", async () => {
    const res = await withStdin("", "merchant", "create", "--name", "Beta Shop", "--owner-email", "ops@beta.example", "--json");
    expect(res).toMatchObject({ code: 0, stderr: "" });
    const created = JSON.parse(res.stdout);
    expect(created).toMatchObject({
      testSecretKey: expect.stringMatching(/^sec_test_/),
      owner: { email: "ops@beta.example", role: "owner", hasPassword: false },
    });
    expect(created.owner.signInUrl).toMatch(new RegExp(`^${LINK.source}$`));
    // A second owner for the same merchant through the usual command finds the first one there: the e-mail is taken.
    const again = await withStdin("", "user", "create", "--merchant", String(created.id), "--email", "ops@beta.example", "--role", "viewer");
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^paygate: email is taken/);
  });

  it("without --owner-email prints no owner (the JSON is the merchant's alone)", async () => {
    const res = await withStdin("", "merchant", "create", "--name", "Gamma", "--json");
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).not.toHaveProperty("owner");
  });

  it("still prints the merchant's secrets when its owner is refused, then says how to add one (exit 1)", async () => {
    const res = await withStdin("", "merchant", "create", "--name", "Delta", "--owner-email", "not-an-email", "--json");
    expect(res.code).toBe(1);
    const created = JSON.parse(res.stdout);
    expect(created).toMatchObject({ name: "Delta", liveSecretKey: expect.stringMatching(/^sec_live_/), owner: null });
    expect(res.stderr).toBe(
      `paygate: merchant ${created.id} was created, but not its owner; add one with: paygate user create --merchant ${created.id} --email EMAIL --role owner\n` +
        "paygate: email is not an e-mail address (name@example.com)\n",
    );
  });
});
