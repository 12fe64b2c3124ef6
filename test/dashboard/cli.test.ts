// `paygate user create`: a dashboard user made by the operator, with a one-time sign-in link built
// on PAYGATE_PUBLIC_URL, or with a password read from standard input.
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
