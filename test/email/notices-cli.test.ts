// `paygate user email-notices` (issue 44): the operator turns a dashboard user's e-mail notices on or
// off, by e-mail; a missing flag, a bad value and an unknown e-mail are refused, saying what to do.
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run.ts";
import { useCli } from "../support/cli.ts";

const paygate = useCli({ inProcess: true, migrated: true });

/** runCli with a password on standard input (a user with an account, as `user sign-in-link` finds). */
async function withStdin(stdin: string, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    env: paygate.env(),
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    stdin: Readable.from([stdin]),
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

describe("paygate user email-notices", () => {
  it("turns a user's notices on and off, as text and JSON", async () => {
    const merchant = JSON.parse((await paygate("merchant", "create", "--name", "Notices Ltd", "--json")).stdout) as { id: number };
    const created = await withStdin(
      "a long enough password\n",
      ...["user", "create", "--merchant", String(merchant.id), "--email", "Ops@Example.com", "--role", "viewer", "--password-stdin", "--json"],
    );
    expect(created.code).toBe(0);
    const userId = JSON.parse(created.stdout).id as string;
    const on = await paygate("user", "email-notices", "--email", "ops@example.com", "--enabled", "true");
    expect(on).toMatchObject({ code: 0, stderr: "" });
    expect(on.stdout).toBe(
      `Turned on the e-mail notices of ops@example.com (${userId}), user of merchant ${merchant.id}: payments received, webhook endpoints disabled and unmatched receipts.\n`,
    );
    const off = await paygate("user", "email-notices", "--email", "ops@example.com", "--enabled", "false", "--json");
    expect(off.code).toBe(0);
    expect(JSON.parse(off.stdout)).toEqual({ userId, email: "ops@example.com", merchantId: merchant.id, enabled: false });
  });

  it("sets a user's notice language, and refuses a missing or bad one and an unknown e-mail", async () => {
    const merchant = JSON.parse((await paygate("merchant", "create", "--name", "Langues SARL", "--json")).stdout) as { id: number };
    const created = await withStdin(
      "a long enough password\n",
      ...["user", "create", "--merchant", String(merchant.id), "--email", "lea@example.com", "--role", "viewer", "--password-stdin", "--json"],
    );
    const userId = JSON.parse(created.stdout).id as string;
    const set = await paygate("user", "notice-language", "--email", "lea@example.com", "--locale", "de");
    expect(set).toMatchObject({ code: 0, stderr: "" });
    expect(set.stdout).toBe(`The e-mail notices of lea@example.com (${userId}), user of merchant ${merchant.id}, are now written in de.\n`);
    const json = await paygate("user", "notice-language", "--email", "lea@example.com", "--locale", "ar", "--json");
    expect(JSON.parse(json.stdout)).toEqual({ userId, email: "lea@example.com", merchantId: merchant.id, locale: "ar" });
    const missing = await paygate("user", "notice-language", "--email", "lea@example.com");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--locale en|fr|es|pt|de|ar is required.");
    const bad = await paygate("user", "notice-language", "--email", "lea@example.com", "--locale", "klingon");
    expect(bad).toMatchObject({ code: 1, stderr: "paygate: --locale must be one of en, fr, es, pt, de, ar\n" });
    const unknown = await paygate("user", "notice-language", "--email", "nobody@example.com", "--locale", "fr");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No dashboard user has the e-mail 'nobody@example.com'");
  });

  it("refuses a missing flag, a bad value and an unknown e-mail (saying why)", async () => {
    const missing = await paygate("user", "email-notices", "--email", "ops@example.com");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--enabled true|false is required.");
    const bad = await paygate("user", "email-notices", "--email", "ops@example.com", "--enabled", "yes");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--enabled must be true or false");
    const unknown = await paygate("user", "email-notices", "--email", "nobody@example.com", "--enabled", "true");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No dashboard user has the e-mail 'nobody@example.com'");
  });
});
