// Issue 28: the checkout never shows the API's English message in another language. Every error
// the checkout can meet (each code of src/core/errors.ts, as GraphQL answers it, and the reasons of
// an initiate's refusals) has a sentence in every language, and the networks are named in each.
import { describe, expect, it } from "vitest";
import { errors, type FieldError, PaygateError } from "../../src/core/errors.ts";
import { CHAINS, COIN_NETWORKS, NETWORK_SLUGS, networkName } from "../../src/core/networks.ts";
import { HTTP_STATUS } from "../../src/edge/status.ts";
import { CODES, graphqlErrorBody } from "../../src/graphql/errors.ts";
import { API_ERROR_CODES, API_ERROR_REASONS, apiErrorText } from "../../web/checkout/api-errors.ts";
import { LOCALES, MESSAGES, networkLabelIn } from "../../web/checkout/i18n.ts";

/** A core error as the checkout's GraphQL client reads it (web/shared/graphql.ts, errorOf): the message and the extensions. */
function asReceived(error: PaygateError) {
  const [body] = graphqlErrorBody(error).errors;
  const extensions = body?.extensions as { code: string; reason: string; errors: { field: string }[] };
  return { message: body?.message ?? "", code: extensions.code, reason: extensions.reason, fields: extensions.errors };
}

const field = (name: string): FieldError[] => [{ field: name, message: `${name} is refused` }];

/** What an initiate from the checkout can be refused with (src/core/transactions/initiate.ts), and the page load's failures. */
const CHECKOUT_ERRORS: PaygateError[] = [
  errors.quoteUnavailable("BTC", "USD", "coingecko: timeout"),
  errors.initiateValidation([{ field: "network", message: "network must be one of ethereum, bsc, tron for USDT (got 'polygon')" }]),
  errors.initiateValidation(field("currency_id")),
  errors.unsupportedCurrency(9, "USDT (3), BTC (4)"),
  errors.processorNotConfigured("USDT", false, "tron"),
  errors.notInitiated("merchant_inactive"),
  errors.notInitiated("transaction_not_initiated"),
  errors.transactionClosed(),
  errors.upstreamUnavailable("Too many BTC payment addresses are being handed out at once; retry shortly", "wallet_busy"),
  errors.upstreamUnavailable("A BTC payment address could not be generated", "address_unavailable"),
  errors.serviceStopping(),
  errors.kybRequired("The merchant's KYB is pending", "kyb_pending"),
  errors.invalidClientSecret(),
  errors.transactionNotFound("nope"),
  errors.databaseUnavailable("database_unreachable"),
  errors.idempotencyConflict(),
  errors.unstorableValue(),
  errors.internal(),
  errors.payloadTooLarge("100kb"),
  errors.credentialInBrowser("secret_key"),
  new PaygateError("rate_limited", "Too many requests: 100 per minute for this key; retry in 12 s", "rate_limited"),
];

describe("the checkout's sentences for API errors", () => {
  it("cover every code of src/core/errors.ts as GraphQL names it", () => {
    const codes = new Set(Object.keys(HTTP_STATUS).map((code) => CODES[code as keyof typeof CODES]));
    expect([...codes].sort()).toEqual([...API_ERROR_CODES].sort());
  });

  it("exist in every language, translated, for every code and reason", () => {
    for (const locale of LOCALES) {
      const m = MESSAGES[locale];
      for (const key of [...API_ERROR_CODES, ...API_ERROR_REASONS]) {
        expect(m.apiErrors[key].trim().length, `${locale} ${key}`).toBeGreaterThan(0);
        if (locale !== "en") expect(m.apiErrors[key], `${locale} ${key}`).not.toBe(MESSAGES.en.apiErrors[key]);
      }
    }
  });

  it("never show the API's English message, for every error an initiate or the page load can meet", () => {
    for (const error of CHECKOUT_ERRORS) {
      const received = asReceived(error);
      expect(received.message).toBe(error.message);
      for (const locale of LOCALES) {
        const shown = apiErrorText(received, MESSAGES[locale]);
        expect(shown, `${locale} ${error.reason}`).not.toContain(error.message);
        // A sentence of the table, not the generic one: each of these is known.
        expect(Object.values(MESSAGES[locale].apiErrors), `${locale} ${error.reason}`).toContain(shown);
        if (locale !== "en") expect(shown, `${locale} ${error.reason}`).not.toBe(apiErrorText(received, MESSAGES.en));
      }
    }
  });

  it("says by its reason what a refusal means: the network, the merchant, a busy wallet", () => {
    const say = (error: PaygateError, locale: (typeof LOCALES)[number]) => apiErrorText(asReceived(error), MESSAGES[locale]);
    expect(say(errors.initiateValidation([{ field: "network", message: "network must be one of …" }]), "fr")).toBe(
      "Cette cryptomonnaie ne peut pas être payée sur ce réseau.",
    );
    expect(say(errors.notInitiated("merchant_inactive"), "de")).toBe("Dieser Händler nimmt gerade keine Zahlungen an.");
    expect(say(errors.notInitiated("merchant_inactive"), "en")).toBe("This merchant is not taking payments right now.");
    expect(say(new PaygateError("rate_limited", "Too many requests", "rate_limited"), "es")).toBe(
      "Demasiados intentos en poco tiempo: espera un momento.",
    );
  });

  it("name a code they do not know, in the language, without the message", () => {
    const unknown = { code: "I_AM_A_TEAPOT", reason: "teapot", fields: [] };
    expect(apiErrorText(unknown, MESSAGES.pt)).toBe("Algo deu errado (erro I_AM_A_TEAPOT).");
    expect(apiErrorText(unknown, MESSAGES.ar)).toBe("حدث خطأ ما (الخطأ I_AM_A_TEAPOT).");
  });
});

describe("the networks' names in every language", () => {
  it("name every network of src/core/networks.ts in both modes; English takes the API's names", () => {
    expect(MESSAGES.en.networkNames).toBeNull();
    for (const locale of LOCALES.filter((l) => l !== "en")) {
      const names = MESSAGES[locale].networkNames;
      expect(names, locale).not.toBeNull();
      expect(Object.keys(names ?? {}).sort(), locale).toEqual([...NETWORK_SLUGS].sort());
      for (const slug of NETWORK_SLUGS) {
        // A test network says so in the language: never the English "testnet".
        expect(names?.[slug].test, `${locale} ${slug}`).not.toBe(CHAINS[slug].test.name);
        expect(names?.[slug].test, `${locale} ${slug}`).not.toMatch(/testnet/);
        expect(names?.[slug].live.length, `${locale} ${slug}`).toBeGreaterThan(0);
      }
    }
  });

  it("label a coin's network with its token standard, in the page's language", () => {
    for (const row of COIN_NETWORKS) {
      for (const isLive of [true, false]) {
        const network = { slug: row.network, name: networkName(row.network, isLive), standard: row.standard };
        const english = row.standard ? `${network.name} (${row.standard})` : network.name;
        expect(networkLabelIn(network, isLive, MESSAGES.en)).toBe(english);
      }
    }
    const bscTest = { slug: "bsc", name: networkName("bsc", false), standard: "BEP-20" };
    expect(networkLabelIn(bscTest, false, MESSAGES.fr)).toBe("BNB Smart Chain (réseau de test) (BEP-20)");
    expect(networkLabelIn(bscTest, false, MESSAGES.ar)).toBe("بي إن بي سمارت تشين (شبكة اختبار) (BEP-20)");
    // A network the page does not know yet keeps the API's name.
    expect(networkLabelIn({ slug: "solana", name: "Solana Devnet", standard: null }, false, MESSAGES.de)).toBe("Solana Devnet");
  });
});
