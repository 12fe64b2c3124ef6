// `paygate webhook-endpoints …`: the operator's view of a merchant's endpoints, through the core as the
// REST API; `merchant create --webhook-url` makes the live mode's first endpoint.
import { describe, expect, it } from "vitest";
import { useCli } from "../support/cli.ts";

const paygate = useCli({ inProcess: true, migrated: true });

describe("paygate webhook-endpoints", () => {
  it("lists the merchant's webhook URL as the first endpoint, creates, changes, rotates and deletes others, printing what it did", async () => {
    const created = await paygate("merchant", "create", "--name", "Endpoints Ltd", "--webhook-url", "https://shop.example.com/hooks", "--json");
    expect(created.code).toBe(0);
    const merchant = String(JSON.parse(created.stdout).id);

    const live = await paygate("webhook-endpoints", "list", "--merchant", merchant, "--mode", "live");
    expect(live.code).toBe(0);
    expect(live.stdout).toMatch(/we_\S+ {2}live {2}https:\/\/shop\.example\.com\/hooks {2}events: \* {2}enabled \[the merchant's webhook URL\]/);
    const none = await paygate("webhook-endpoints", "list", "--merchant", merchant);
    expect(none.stdout).toBe(`Merchant ${merchant} has no test-mode webhook endpoints.\n`);

    const made = await paygate(
      "webhook-endpoints",
      "create",
      "--merchant",
      merchant,
      "--mode",
      "live",
      "--url",
      "https://books.example.com/in",
      "--events",
      "payment.received,payment.reversed",
      "--description",
      "Accounting",
    );
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^Created webhook endpoint we_\S+ of merchant \d+ \(live mode\):/);
    expect(made.stdout).toContain("events: payment.received,payment.reversed  enabled");
    expect(made.stdout).toMatch(/signing secret {4}whsec_\S+/);
    const id = /Created webhook endpoint (we_\S+)/.exec(made.stdout)?.[1] ?? "";

    const disabled = await paygate("webhook-endpoints", "update", id, "--merchant", merchant, "--mode", "live", "--disable");
    expect(disabled.stdout).toContain("DISABLED (manual since");
    const enabled = await paygate(
      "webhook-endpoints",
      "update",
      id,
      "--merchant",
      merchant,
      "--mode",
      "live",
      "--enable",
      "--redeliver-missed",
      "--events",
      "*",
    );
    expect(enabled.code).toBe(0);
    expect(enabled.stdout).toContain("events: *  enabled");
    expect(enabled.stdout).toContain("Queued 0 missed deliveries again.");

    const rotated = await paygate("webhook-endpoints", "rotate-secret", id, "--merchant", merchant, "--mode", "live");
    expect(rotated.stdout).toMatch(new RegExp(`Rotated the signing secret of webhook endpoint ${id}\\.\\n\\n {2}signing secret {4}whsec_`));
    const deliveries = await paygate("webhook-endpoints", "deliveries", id, "--merchant", merchant, "--mode", "live", "--status", "failed");
    expect(deliveries).toMatchObject({ code: 0, stdout: "No deliveries.\n" });

    const deleted = await paygate("webhook-endpoints", "delete", id, "--merchant", merchant, "--mode", "live");
    expect(deleted.stdout).toBe(`Deleted webhook endpoint ${id} (https://books.example.com/in).\n`);
    const after = await paygate("webhook-endpoints", "list", "--merchant", merchant, "--mode", "live", "--json");
    expect(JSON.parse(after.stdout).endpoints.map((e: { url: string }) => e.url)).toEqual(["https://shop.example.com/hooks"]);
  }, 300_000); // each command opens and closes the database, as the process does

  it("refuses bad input with the core's message (exit 1) and bad arguments with the usage (exit 2), changing nothing", async () => {
    const created = await paygate("merchant", "create", "--name", "Strict Ltd", "--json");
    const merchant = String(JSON.parse(created.stdout).id);
    const unknown = await paygate(
      "webhook-endpoints",
      "create",
      "--merchant",
      merchant,
      "--url",
      "https://x.example.com/in",
      "--events",
      "payment.bogus",
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Invalid webhook endpoint: enabled_events names no event type: payment.bogus");
    const badUrl = await paygate("webhook-endpoints", "create", "--merchant", merchant, "--mode", "live", "--url", "http://x.example.com/in");
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toContain("live-mode webhook URLs must use https");
    const noUrl = await paygate("webhook-endpoints", "create", "--merchant", merchant);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain("--url URL is required.");
    const other = await paygate("webhook-endpoints", "delete", "we_nosuchendpoint", "--merchant", merchant);
    expect(other.code).toBe(1);
    expect(other.stderr).toBe("paygate: No webhook endpoint with id 'we_nosuchendpoint'\n");
    const list = await paygate("webhook-endpoints", "list", "--merchant", merchant, "--json");
    expect(JSON.parse(list.stdout)).toEqual({ endpoints: [] });
  }, 300_000);
});
