// The operator CLI on the configured database: in this process through runCli (src/cli/run.ts), and
// as an operator runs it, `paygate …` in a child process, where the process itself is what is tested.
import { describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../src/core/money/currencies.ts";
import { COIN_NETWORKS } from "../src/core/networks.ts";
import { HdWalletRails } from "../src/rails/wallets/index.ts";
import { CHILD_TIMEOUT_MS, itRefusesBadArgs, useCli, type BadArgs } from "./support/cli.ts";

const BIP84_ZPUB = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
// On an empty data folder, as on a first install: the first command (in a child process) migrates it.
const paygate = useCli({ inProcess: true });

describe("paygate CLI", () => {
  let merchantId: number;

  it(
    "creates a merchant and prints its keys once, as JSON (bin/paygate.mjs in a child process)",
    async () => {
      const res = await paygate.child("merchant", "create", "--name", "Acme Stores", "--test-webhook-url", "http://127.0.0.1:9999/hook", "--json");
      expect(res.code).toBe(0);
      const merchant = JSON.parse(res.stdout);
      expect(Object.keys(merchant).sort()).toEqual(
        ["id", "livePublicKey", "liveSecretKey", "name", "testPublicKey", "testSecretKey", "webhookSecret"].sort(),
      );
      expect(merchant.name).toBe("Acme Stores");
      expect(merchant.testPublicKey).toMatch(/^pub_test_/);
      expect(merchant.testSecretKey).toMatch(/^sec_test_/);
      expect(merchant.livePublicKey).toMatch(/^pub_live_/);
      expect(merchant.liveSecretKey).toMatch(/^sec_live_/);
      expect(merchant.webhookSecret).toMatch(/^whsec_/);
      merchantId = merchant.id;
    },
    CHILD_TIMEOUT_MS + 5_000,
  );

  it("prints a readable summary without --json", async () => {
    const res = await paygate("merchant", "create", "--name", "Readable Ltd", "--kyb", "pending");
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Created merchant \d+ "Readable Ltd" \(KYB: pending\)/);
    expect(res.stdout).toMatch(/test secret key\s+sec_test_/);
  });

  it("sets a live wallet, KYB and activity, and shows them", async () => {
    const res = await paygate(
      "merchant",
      "update",
      String(merchantId),
      "--kyb",
      "verified",
      "--active",
      "false",
      "--wallet",
      `BTC=${BIP84_ZPUB}`,
      "--json",
    );
    expect(res.code).toBe(0);
    const summary = JSON.parse(res.stdout);
    expect(summary).toMatchObject({ id: merchantId, active: false, kyb: "verified" });
    expect(summary.wallets).toContainEqual({ currency: "BTC", mode: "live", extendedPublicKey: BIP84_ZPUB, nextIndex: 0 });
    // A new merchant has a test wallet for each coin on each of its networks (core/networks.ts).
    expect(summary.wallets.filter((w: { mode: string }) => w.mode === "test")).toHaveLength(COIN_NETWORKS.length);
  });

  it("sets a wallet on a network other than the coin's default (USDT@bsc), and shows it so", async () => {
    const key = new HdWalletRails().createTestWallet(cryptoBySlug("USDT") as CryptoCurrency, "bsc");
    const res = await paygate("merchant", "update", String(merchantId), "--wallet", `USDT@bsc=${key}`, "--mode", "test", "--json");
    expect(res.code, res.stderr).toBe(0);
    const summary = JSON.parse(res.stdout);
    expect(summary.wallets).toContainEqual({ currency: "USDT@bsc", mode: "test", extendedPublicKey: key, nextIndex: 0 });
    // USDT on its default network keeps its own wallet.
    expect(summary.wallets.filter((w: { currency: string; mode: string }) => w.currency === "USDT" && w.mode === "test")).toHaveLength(1);
    const unknown = await paygate("merchant", "update", String(merchantId), "--wallet", `USDT@solana=${key}`, "--mode", "test");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--wallet USDT@solana: unknown network; USDT is paid on /);
  });

  it("refuses a wallet key of the wrong network, saying why, and changes nothing", async () => {
    const res = await paygate("merchant", "update", String(merchantId), "--wallet", `LTC=${BIP84_ZPUB}`, "--mode", "test");
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/LTC wallet: /);
    expect(res.stderr).toMatch(/test/i);
  });

  it("refuses an unknown merchant with exit code 1", async () => {
    const res = await paygate("merchant", "update", "999999", "--active", "true");
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/No merchant with id 999999/);
  });

  it("creates test and live payment links", async () => {
    const test = await paygate("payment-link", "create", "--merchant", String(merchantId), "--json");
    expect(test.code).toBe(0);
    expect(JSON.parse(test.stdout).slug).toMatch(/^pl_[0-9A-Za-z]{20}$/);
    const live = await paygate("payment-link", "create", "--merchant", String(merchantId), "--live");
    expect(live.code).toBe(0);
    expect(live.stdout).toMatch(/Created live payment link pl_\w+ for merchant/);
  });

  const badArgs: BadArgs[] = [
    ["an unknown command", ["merchant", "delete"], /Unknown command 'merchant delete'/],
    ["a missing name", ["merchant", "create"], /--name is required/],
    ["an unknown option", ["merchant", "create", "--name", "x", "--colour", "red"], /Unknown option '--colour'/],
    ["a bad KYB status", ["merchant", "create", "--name", "x", "--kyb", "maybe"], /--kyb must be one of/],
    ["a bad merchant id", ["merchant", "update", "abc", "--active", "true"], /merchant id is a whole number/],
    ["a bad --active", ["merchant", "update", "1", "--active", "yes"], /--active must be true or false/],
    ["a malformed --wallet", ["merchant", "update", "1", "--wallet", "DOGE=abc"], /--wallet takes CURRENCY=EXTENDED_PUBLIC_KEY/],
    ["nothing to change", ["merchant", "update", "1"], /Nothing to change/],
  ];
  itRefusesBadArgs(paygate, badArgs);

  it("exits 2 from the process on bad arguments, and 0 on --help", async () => {
    const bad = await paygate.child("merchant", "delete");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^paygate: Unknown command 'merchant delete'\.\n\nUsage: paygate merchant <command>/);
    const help = await paygate.child("merchant", "create", "--help");
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^Usage: paygate merchant create --name NAME/);
  });
});

describe("paygate --help", () => {
  const overall = /^Usage: paygate <command> \[options\]\n/;
  it.each([[[]], [["--help"]], [["-h"]], [["help"]]])("prints the overall usage for paygate %j and exits 0", async (args: string[]) => {
    const res = await paygate(...args);
    expect(res).toMatchObject({ code: 0, stderr: "" });
    expect(res.stdout).toMatch(overall);
    for (const command of [
      "merchant create",
      "merchant update",
      "payment-link create",
      "test-rates list",
      "test-rates set",
      "worker",
      "webhooks list",
      "webhooks redeliver",
      "user create",
    ]) {
      expect(res.stdout).toContain(`\n  ${command}`);
    }
  });

  // Each command and group: its usage line, and what its own help lists (options, arguments, subcommands).
  const commands: [path: string, usage: string, mentions: string[]][] = [
    ["merchant", "merchant <command> [options]", ["merchant create --name NAME", "merchant update ID"]],
    [
      "merchant create",
      "merchant create --name NAME [--webhook-url URL]",
      ["--name <name>", "--webhook-url <url>", "--test-webhook-url <url>", "--kyb <status>", "--json"],
    ],
    [
      "merchant update",
      "merchant update ID [--active true|false]",
      ["ID", "--active <bool>", "--wallet <currency=key>", "--mode <mode>", "--kyb <status>", "--json"],
    ],
    ["payment-link", "payment-link <command> [options]", ["payment-link create --merchant ID"]],
    ["payment-link create", "payment-link create --merchant ID [--live] [--json]", ["--merchant <id>", "--live", "--json"]],
    ["test-rates", "test-rates <command> [options]", ["test-rates list [--json]", "test-rates set CRYPTO FIAT RATE"]],
    ["test-rates list", "test-rates list [--json]", ["--json"]],
    ["test-rates set", "test-rates set CRYPTO FIAT RATE [--json]", ["CRYPTO", "FIAT", "RATE", "--json"]],
    ["worker", "worker", ["Run the background jobs"]],
    ["webhooks", "webhooks <command> [options]", ["webhooks list [--merchant ID]", "webhooks redeliver EVENT_ID"]],
    ["webhooks list", "webhooks list [--merchant ID]", ["--merchant <id>", "--state <state>", "--transaction <id>", "--limit <n>", "--json"]],
    ["webhooks redeliver", "webhooks redeliver EVENT_ID [--json]", ["EVENT_ID", "--json"]],
    ["user", "user <command> [options]", ["user create --merchant ID --email EMAIL"]],
    [
      "user create",
      "user create --merchant ID --email EMAIL --role owner|developer|viewer",
      ["--merchant <id>", "--email <email>", "--role <role>", "--password-stdin", "--json"],
    ],
  ];
  const cases = commands.flatMap(([path, usage, mentions]) =>
    [
      [...path.split(" "), "--help"],
      [...path.split(" "), "-h"],
      ["help", ...path.split(" ")],
    ].map((args) => ({ args, usage, mentions })),
  );
  it.each(cases)("prints its own usage for paygate $args and exits 0", async ({ args, usage, mentions }) => {
    const res = await paygate(...args);
    expect(res).toMatchObject({ code: 0, stderr: "" });
    expect(res.stdout.startsWith(`Usage: paygate ${usage}`)).toBe(true);
    expect(res.stdout).not.toMatch(overall);
    for (const text of mentions) expect(res.stdout).toContain(text);
    expect(res.stdout).toMatch(/-h, --help|--help' for a command's options/);
  });

  it("answers --help anywhere in a command line, before checking the rest", async () => {
    const res = await paygate("merchant", "update", "not-an-id", "--kyb", "maybe", "--help");
    expect(res).toMatchObject({ code: 0, stderr: "" });
    expect(res.stdout).toMatch(/^Usage: paygate merchant update ID/);
  });
});
