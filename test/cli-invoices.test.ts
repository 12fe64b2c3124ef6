// `paygate invoices …` (issue 44; docs/invoices.md): the operator's view of a merchant's invoices,
// through the core's façade as REST and GraphQL; each command prints what it did, and a refusal
// says what to do next.
import { describe, expect, it } from "vitest";
import { useCli } from "./support/cli.ts";

const paygate = useCli({ inProcess: true, migrated: true });

async function merchant(name: string): Promise<string> {
  const created = await paygate("merchant", "create", "--name", name, "--json");
  expect(created.code).toBe(0);
  return String(JSON.parse(created.stdout).id);
}

describe("paygate invoices", () => {
  it("creates a draft, lists, shows, finalizes with the next number and voids, printing what it did", async () => {
    const id = await merchant("Invoicing Ltd");
    const none = await paygate("invoices", "list", "--merchant", id);
    expect(none).toMatchObject({
      code: 0,
      stdout: `Merchant ${id} has no test-mode invoices; make one with: paygate invoices create --merchant ${id} …\n`,
    });

    const created = await paygate(
      "invoices",
      "create",
      "--merchant",
      id,
      "--email",
      "ada@example.com",
      "--name",
      "Ada Lovelace",
      "--currency",
      "usd",
      "--item",
      "Logo design=2x150.00",
      "--item",
      "Hosting x1 year=1x30.5",
      "--tax",
      "VAT=7.5",
      "--memo",
      "Thank you",
      "--due-date",
      "2030-01-31",
      "--allow-partial",
      "--locale",
      "fr",
    );
    expect(created.code).toBe(0);
    const invoiceId = /Created invoice (inv_\S+) of merchant/.exec(created.stdout)?.[1] ?? "";
    expect(invoiceId).toMatch(/^inv_/);
    expect(created.stdout).toContain("(draft), test mode: draft");
    expect(created.stdout).toContain("  customer   Ada Lovelace <ada@example.com>");
    expect(created.stdout).toContain("    Logo design  2 × 150.00 = 300.00");
    expect(created.stdout).toContain("    Hosting x1 year  1 × 30.50 = 30.50");
    expect(created.stdout).toContain("  subtotal   330.50 USD");
    expect(created.stdout).toContain("  VAT (7.5%)  24.79");
    expect(created.stdout).toContain("  total      355.29 USD");
    expect(created.stdout).toContain("  left       355.29");
    expect(created.stdout).toContain("  due date   2030-01-31  (partial payments allowed)");
    expect(created.stdout).toContain("  language   fr");
    const german = await paygate(
      "invoices",
      "update",
      /Created invoice (inv_\S+) of merchant/.exec(created.stdout)?.[1] ?? "",
      "--merchant",
      id,
      "--locale",
      "de",
    );
    expect(german).toMatchObject({ code: 0, stdout: expect.stringContaining("is now written in de.") });
    expect(created.stdout).toContain("  page       none while a draft");
    expect(created.stdout).toContain(
      `It is a draft: finalize it to number it and open its page: paygate invoices finalize ${invoiceId} --merchant ${id} --mode test`,
    );

    const listed = await paygate("invoices", "list", "--merchant", id);
    expect(listed.stdout).toBe(`  ${invoiceId}  draft  draft  355.29 USD, paid 0.00, left 355.29  ada@example.com  due 2030-01-31\n`);

    const finalized = await paygate("invoices", "finalize", invoiceId, "--merchant", id);
    expect(finalized.code).toBe(0);
    expect(finalized.stdout).toMatch(
      new RegExp(
        `^Finalized invoice ${invoiceId} as INV-0001: open, 355\\.29 USD to pay\\.\\nSend ada@example\\.com its page: http\\S+/invoice/[0-9A-Za-z]{32}\\n$`,
      ),
    );
    const again = await paygate("invoices", "finalize", invoiceId, "--merchant", id);
    expect(again).toMatchObject({ code: 1, stderr: "paygate: The invoice is open, not a draft: only a draft can be finalized\n" });

    const shown = await paygate("invoices", "show", invoiceId, "--merchant", id, "--json");
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: invoiceId, number: "INV-0001", state: "open", amount_paid: "0.00", amount_due: "355.29" });

    const second = await paygate(
      "invoices",
      "create",
      "--merchant",
      id,
      "--email",
      "bob@example.com",
      "--currency",
      "NGN",
      "--item",
      "Consulting=3x10000",
      "--finalize",
    );
    expect(second.stdout).toContain("(INV-0002), test mode: open");
    expect(second.stdout).toMatch(/Send the customer its page: http\S+\/invoice\/[0-9A-Za-z]{32}\n$/);

    const voided = await paygate("invoices", "void", invoiceId, "--merchant", id);
    expect(voided).toMatchObject({ code: 0, stdout: `Voided invoice ${invoiceId} (INV-0001): its page no longer takes payments.\n` });
    const voidAgain = await paygate("invoices", "void", invoiceId, "--merchant", id);
    expect(voidAgain).toMatchObject({ code: 1, stderr: "paygate: The invoice is void already\n" });

    const all = await paygate("invoices", "list", "--merchant", id, "--json");
    expect(JSON.parse(all.stdout).invoices.map((i: { number: string; state: string }) => `${i.number} ${i.state}`)).toEqual([
      "INV-0002 open",
      "INV-0001 void",
    ]);
    // The modes are walls: the live mode has none of them, and a test id is unknown there.
    const live = await paygate("invoices", "show", invoiceId, "--merchant", id, "--mode", "live");
    expect(live).toMatchObject({
      code: 1,
      stderr: `paygate: No invoice with id '${invoiceId}' for merchant ${id} in live mode; its ids: paygate invoices list --merchant ${id} --mode live\n`,
    });
  }, 300_000); // each command opens and closes the database, as the process does

  it("refuses bad input with the core's message (exit 1) and bad arguments with the usage (exit 2), changing nothing", async () => {
    const id = await merchant("Strict Invoices Ltd");
    const base = ["invoices", "create", "--merchant", id, "--currency", "USD"];
    const badEmail = await paygate(...base, "--email", "not-an-address", "--item", "A=1x1.00");
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toContain("paygate: Invalid invoice:");
    expect(badEmail.stderr).toContain("must be a valid e-mail address");
    const fractional = await paygate(...base, "--email", "a@example.com", "--item", "A=1.5x1.00");
    expect(fractional.code).toBe(1);
    expect(fractional.stderr).toContain("must be a positive integer");
    const negative = await paygate(...base, "--email", "a@example.com", "--item", "A=-2x1.00");
    expect(negative.code).toBe(1);
    expect(negative.stderr).toContain("must be a positive integer");
    const cents = await paygate(...base, "--email", "a@example.com", "--item", "A=1x1.001");
    expect(cents).toMatchObject({
      code: 1,
      stderr: "paygate: Invalid invoice: items.0.unit_price has more than 2 decimal places, the precision of USD\n",
    });

    const noItem = await paygate(...base, "--email", "a@example.com");
    expect(noItem.code).toBe(2);
    expect(noItem.stderr).toContain('paygate: At least one --item DESCRIPTION=QUANTITYxUNIT_PRICE is required, e.g. --item "Logo design=2x150.00".');
    expect(noItem.stderr).toContain("Usage: paygate invoices <command> [options]");
    const badItem = await paygate(...base, "--email", "a@example.com", "--item", "just words");
    expect(badItem).toMatchObject({ code: 2 });
    expect(badItem.stderr).toContain(
      `paygate: --item must be DESCRIPTION=QUANTITYxUNIT_PRICE, e.g. --item "Logo design=2x150.00"; got 'just words'.`,
    );
    const badLocale = await paygate(...base, "--email", "a@example.com", "--item", "A=1x1.00", "--locale", "it");
    expect(badLocale).toMatchObject({ code: 1, stderr: "paygate: Invalid invoice: locale must be one of en, fr, es, pt, de, ar\n" });
    const badTax = await paygate(...base, "--email", "a@example.com", "--item", "A=1x1", "--tax", "7.5");
    expect(badTax.stderr).toContain(`paygate: --tax must be NAME=RATE (percent), e.g. --tax "VAT=7.5"; got '7.5'.`);
    const noMerchant = await paygate("invoices", "list");
    expect(noMerchant.code).toBe(2);
    expect(noMerchant.stderr).toContain("paygate: --merchant ID is required.");
    const badMode = await paygate("invoices", "list", "--merchant", id, "--mode", "staging");
    expect(badMode.stderr).toContain("paygate: --mode must be test or live; got 'staging'.");
    const unknown = await paygate("invoices", "void", "inv_nope", "--merchant", id);
    expect(unknown).toMatchObject({
      code: 1,
      stderr: `paygate: No invoice with id 'inv_nope' for merchant ${id} in test mode; its ids: paygate invoices list --merchant ${id} --mode test\n`,
    });
    const missing = await paygate("invoices", "show", "--merchant", id);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("paygate: Expected 1 argument(s), got 0.");

    const list = await paygate("invoices", "list", "--merchant", id, "--json");
    expect(JSON.parse(list.stdout)).toEqual({ invoices: [], has_more: false });
  }, 300_000);
});
