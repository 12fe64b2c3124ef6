// The operator CLI's share of the dashboard's operations: rotating the webhook secret, sending a test
// event, listing and rolling API keys, listing and deactivating payment links.
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { itRefusesBadArgs, useCli, type BadArgs } from "./support/cli.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.ts";

const paygate = useCli({ inProcess: true, migrated: true });
let receiver: WebhookReceiver;
let merchant: { id: number; webhookSecret: string; testSecretKey: string; livePublicKey: string };

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const res = await paygate("merchant", "create", "--name", "CLI Manager", "--test-webhook-url", receiver.url, "--json");
  expect(res.code).toBe(0);
  merchant = JSON.parse(res.stdout);
});
afterAll(() => receiver.close());

const id = () => String(merchant.id);

describe("paygate webhooks rotate-secret and send-test", () => {
  it("prints the new secret once; a test event then verifies under the old and the new secret", async () => {
    const rotated = await paygate("webhooks", "rotate-secret", "--merchant", id());
    expect(rotated.code).toBe(0);
    const secret = /webhook secret\s+(whsec_\S+)/.exec(rotated.stdout)?.[1] ?? "";
    expect(secret).toMatch(/^whsec_/);
    expect(rotated.stdout.split(secret)).toHaveLength(2); // once
    expect(rotated.stdout).toMatch(/Until \d{4}-\d\d-\d\dT[\d:.]+Z every delivery is signed\nwith both the old and the new secret/);

    const sent = await paygate("webhooks", "send-test", "--merchant", id());
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(
      new RegExp(`^Sent a test webhook.test event \\(evt_test_\\w+\\) to ${receiver.url}: HTTP 200 in \\d+ ms\\.\\nResponse: ok\\n$`),
    );
    const request = receiver.received.at(-1)!;
    const headers = {
      "webhook-id": String(request.headers["webhook-id"]),
      "webhook-timestamp": String(request.headers["webhook-timestamp"]),
      "webhook-signature": String(request.headers["webhook-signature"]),
    };
    expect(new Webhook(secret).verify(request.body, headers)).toMatchObject({ event: "webhook.test", data: { mode: "test" } });
    expect(new Webhook(merchant.webhookSecret).verify(request.body, headers)).toMatchObject({ event: "webhook.test" });
  });

  it("answers JSON with --json", async () => {
    const rotated = await paygate("webhooks", "rotate-secret", "--merchant", id(), "--json");
    expect(rotated.code).toBe(0);
    expect(Object.keys(JSON.parse(rotated.stdout)).sort()).toEqual(["merchantId", "previousSecretExpiresAt", "rotatedAt", "webhookSecret"]);
    const sent = await paygate("webhooks", "send-test", "--merchant", id(), "--mode", "test", "--json");
    expect(JSON.parse(sent.stdout)).toMatchObject({ ok: true, statusCode: 200, mode: "test", url: receiver.url, responseBody: "ok" });
  });

  it("refuses a test event for a mode without a URL, and an unknown merchant, with exit code 1", async () => {
    const live = await paygate("webhooks", "send-test", "--merchant", id(), "--mode", "live");
    expect(live).toMatchObject({ code: 1, stdout: "" });
    expect(live.stderr).toBe("paygate: No live webhook URL is set, so there is nowhere to send a test event; set the live webhook URL first\n");
    const unknown = await paygate("webhooks", "rotate-secret", "--merchant", "999999");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No merchant with id 999999/);
  });
});

describe("paygate keys", () => {
  it("rolls a key, printing the new one once, and lists the keys without a secret", async () => {
    const rolled = await paygate("keys", "roll", "--merchant", id(), "--mode", "test", "--kind", "secret", "--old-expires", "1h");
    expect(rolled.code).toBe(0);
    const key = /new test secret key\s+(sec_test_\w+)/.exec(rolled.stdout)?.[1] ?? "";
    expect(key).toMatch(/^sec_test_\w{40}$/);
    expect(rolled.stdout).toContain(`The old key ${merchant.testSecretKey.slice(0, 13)}… works until `);

    const now = await paygate("keys", "roll", "--merchant", id(), "--mode", "live", "--kind", "public", "--old-expires", "now", "--json");
    const json = JSON.parse(now.stdout);
    expect(json).toMatchObject({ mode: "live", kind: "public", replaced: [{ prefix: merchant.livePublicKey }] });

    const list = await paygate("keys", "list", "--merchant", id(), "--json");
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain(key);
    const keys: { prefix: string; status: string; kind: string; mode: string }[] = JSON.parse(list.stdout).keys;
    expect(keys).toHaveLength(6);
    expect(keys.find((k) => k.prefix === merchant.livePublicKey)?.status).toBe("expired");
    expect(keys.find((k) => k.prefix === json.key)?.status).toBe("active");
    expect(keys.find((k) => k.prefix === `${merchant.testSecretKey.slice(0, 13)}…`)?.status).toBe("expiring");
    const text = await paygate("keys", "list", "--merchant", id());
    expect(text.stdout).toMatch(/test secret sec_test_\w{4}… +expiring, works until /);
  });

  it("refuses an unknown merchant with exit code 1", async () => {
    const res = await paygate("keys", "roll", "--merchant", "999999", "--mode", "test", "--kind", "public", "--old-expires", "now");
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/No merchant with id 999999/);
  });
});

describe("paygate payment-link list and deactivate", () => {
  it("lists the links and deactivates one", async () => {
    const created = await paygate("payment-link", "create", "--merchant", id(), "--json");
    const slug: string = JSON.parse(created.stdout).slug;
    const list = await paygate("payment-link", "list", "--merchant", id());
    expect(list.stdout).toMatch(new RegExp(`${slug}  test active +0 transaction\\(s\\), created `));
    const off = await paygate("payment-link", "deactivate", slug, "--merchant", id());
    expect(off).toMatchObject({ code: 0, stdout: `Deactivated test payment link ${slug} of merchant ${id()}: it starts no more transactions.\n` });
    const json = await paygate("payment-link", "list", "--merchant", id(), "--json");
    expect(JSON.parse(json.stdout).paymentLinks).toEqual([expect.objectContaining({ slug, active: false, mode: "test", transactionCount: 0 })]);
  });

  it("refuses an unknown link with exit code 1", async () => {
    const res = await paygate("payment-link", "deactivate", "pl_doesnotexist", "--merchant", id());
    expect(res.code).toBe(1);
    expect(res.stderr).toBe("paygate: This merchant has no payment link 'pl_doesnotexist'\n");
  });
});

const badArgs: BadArgs[] = [
  ["rotate-secret without --merchant", ["webhooks", "rotate-secret"], /--merchant ID is required/],
  ["send-test with a bad mode", ["webhooks", "send-test", "--merchant", "1", "--mode", "prod"], /--mode must be test or live; got 'prod'/],
  ["keys roll without --mode", ["keys", "roll", "--merchant", "1", "--kind", "public", "--old-expires", "now"], /--mode test\|live is required/],
  [
    "keys roll with a bad kind",
    ["keys", "roll", "--merchant", "1", "--mode", "test", "--kind", "private", "--old-expires", "now"],
    /--kind must be public or secret; got 'private'/,
  ],
  [
    "keys roll without --old-expires",
    ["keys", "roll", "--merchant", "1", "--mode", "test", "--kind", "public"],
    /--old-expires now\|1h\|24h is required/,
  ],
  [
    "keys roll with a bad --old-expires",
    ["keys", "roll", "--merchant", "1", "--mode", "test", "--kind", "public", "--old-expires", "2h"],
    /--old-expires must be now, 1h or 24h; got '2h'/,
  ],
  ["keys list with a bad merchant id", ["keys", "list", "--merchant", "abc"], /merchant id is a whole number/],
  ["payment-link deactivate without a slug", ["payment-link", "deactivate", "--merchant", "1"], /Expected 1 argument\(s\), got 0/],
  ["an unknown keys command", ["keys", "revoke"], /Unknown command 'keys revoke'/],
];
itRefusesBadArgs(paygate, badArgs);

describe("help", () => {
  it("lists the new commands in the overall usage and their groups'", async () => {
    const overall = await paygate("--help");
    for (const command of [
      "webhooks rotate-secret",
      "webhooks send-test",
      "keys list",
      "keys roll",
      "payment-link list",
      "payment-link deactivate",
    ]) {
      expect(overall.stdout).toContain(`\n  ${command}`);
    }
    const keys = await paygate("keys", "--help");
    expect(keys.stdout).toMatch(/^Usage: paygate keys <command> \[options\]/);
    const roll = await paygate("keys", "roll", "--help");
    expect(roll.stdout).toMatch(/^Usage: paygate keys roll --merchant ID --mode test\|live --kind public\|secret/);
    for (const option of ["--merchant <id>", "--mode <mode>", "--kind <kind>", "--old-expires <when>", "--json"])
      expect(roll.stdout).toContain(option);
  });
});
