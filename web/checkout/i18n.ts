// The checkout's languages (the API's list: src/core/transactions/locales.ts) and how amounts and
// dates read in each. The language is the customer's pick on the page (remembered in this browser),
// else the merchant's `locale` at initialize, else the browser's languages, else English.
// Amounts stay exact: digits come from the API's decimal strings, only separators and digit shapes
// from Intl (read off small numbers), so no amount passes through a float.
import { ar } from "./locales/ar.ts";
import { de } from "./locales/de.ts";
import { type CoinNames, en, type Messages, type NetworkNames } from "./locales/en.ts";
import { es } from "./locales/es.ts";
import { fr } from "./locales/fr.ts";
import { pt } from "./locales/pt.ts";

export type { Messages };

export const LOCALES = ["en", "fr", "es", "pt", "de", "ar"] as const;
export type Locale = (typeof LOCALES)[number];

export const MESSAGES: Record<Locale, Messages> = { en, fr, es, pt, de, ar };

/** Each language named in itself, for the picker. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: "English",
  fr: "Français",
  es: "Español",
  pt: "Português",
  de: "Deutsch",
  ar: "العربية",
};

const RIGHT_TO_LEFT: ReadonlySet<Locale> = new Set(["ar"]);

export function isLocale(value: string | null | undefined): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

export function directionOf(locale: Locale): "rtl" | "ltr" {
  return RIGHT_TO_LEFT.has(locale) ? "rtl" : "ltr";
}

/**
 * How a network is named to the customer in the page's language: "Ethereum Sepolia (réseau de test)
 * (ERC-20)". The locale's own name of the network, else the API's (English, src/core/networks.ts).
 */
export function networkLabelIn(network: { slug: string; name: string; standard: string | null }, isLive: boolean, m: Messages): string {
  const names = m.networkNames;
  const own = names && Object.hasOwn(names, network.slug) ? names[network.slug as keyof NetworkNames][isLive ? "live" : "test"] : null;
  const name = own ?? network.name;
  return network.standard ? `${name} (${network.standard})` : name;
}

/** A coin's name in the page's language ("بيتكوين"), else the API's ("Bitcoin"). */
export function coinNameIn(coin: { slug: string; name: string }, m: Messages): string {
  const names = m.coinNames;
  return names && Object.hasOwn(names, coin.slug) ? names[coin.slug as keyof CoinNames] : coin.name;
}

/** The first supported language among the browser's (navigator.languages: "fr-CA" → fr). */
export function fromBrowser(languages: readonly string[]): Locale | null {
  for (const tag of languages) {
    const base = tag.toLowerCase().split("-")[0];
    if (isLocale(base)) return base;
  }
  return null;
}

/** The customer's pick, then the merchant's, then the browser's. */
export function chooseLocale(picked: string | null, merchant: string | null, languages: readonly string[]): Locale {
  if (isLocale(picked)) return picked;
  if (isLocale(merchant)) return merchant;
  return fromBrowser(languages) ?? "en";
}

interface Separators {
  decimal: string;
  /** The locale's ten digits (Arabic-Indic in some). */
  digits: string[];
}

const separators = new Map<string, Separators>();

function separatorsOf(locale: string): Separators {
  let found = separators.get(locale);
  if (!found) {
    const format = new Intl.NumberFormat(locale);
    const decimal = format.formatToParts(1.5).find((p) => p.type === "decimal")?.value ?? ".";
    const digits = Array.from({ length: 10 }, (_, d) => format.format(d));
    found = { decimal, digits };
    separators.set(locale, found);
  }
  return found;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * A decimal string in the locale's separators and digits, exactly: the integer part is grouped by
 * Intl as a bigint (exact at any size), the fraction's digits are kept as given.
 */
export function formatDecimal(amount: string, locale: string, minimumFractionDigits = 0): string {
  const match = DECIMAL.exec(amount.trim());
  if (!match) return amount;
  const [, sign = "", whole = "0", fraction = ""] = match;
  const { decimal, digits } = separatorsOf(locale);
  const grouped = new Intl.NumberFormat(locale).format(BigInt(whole));
  const shown = fraction.padEnd(minimumFractionDigits, "0");
  const fractionText = shown.replace(/\d/g, (d) => digits[Number(d)] ?? d);
  return `${sign ? "-" : ""}${grouped}${shown ? `${decimal}${fractionText}` : ""}`;
}

/**
 * In a right-to-left text an amount is isolated (FSI … PDI), so "1,666.67 USDT" keeps its order
 * instead of the code jumping to the number's other side.
 */
function isolated(text: string, locale: string): string {
  return isLocale(locale) && directionOf(locale) === "rtl" ? `\u2068${text}\u2069` : text;
}

/** A fiat amount with the locale's currency pattern ("$100.00", "100,00 $US", "NGN 25,000.00"), exactly. */
export function formatFiat(amount: string, currency: string, locale: string): string {
  let format: Intl.NumberFormat;
  try {
    format = new Intl.NumberFormat(locale, { style: "currency", currency });
  } catch {
    return isolated(`${amount} ${currency}`, locale);
  }
  const places = format.resolvedOptions().minimumFractionDigits ?? 2;
  const number = formatDecimal(amount, locale, places);
  // The pattern of 0 (symbol, spacing, order), its number swapped for the exact one.
  let placed = false;
  const text = format
    .formatToParts(0)
    .map((part) => {
      if (part.type === "integer" || part.type === "decimal" || part.type === "fraction" || part.type === "group") {
        if (placed) return "";
        placed = true;
        return number;
      }
      return part.value;
    })
    .join("");
  return isolated(text, locale);
}

/** A coin amount: "0.00153847 BTC", "0,00153847 BTC". */
export function formatCrypto(amount: string, slug: string, locale: string): string {
  return isolated(`${formatDecimal(amount, locale)} ${slug}`, locale);
}

/** A date and time in the locale: "26 November 2026 at 10:44". */
export function formatDateTime(iso: string, locale: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { dateStyle: "long", timeStyle: "short" }).format(date);
}

/** What the countdown tells a screen reader: every 5 minutes, then each minute of the last five. */
export function spokenTimeLeft(ms: number, m: Messages): string {
  if (ms <= 0) return m.timeUp;
  const minutes = Math.ceil(ms / 60_000);
  if (minutes <= 1) return m.lessThanAMinute;
  if (minutes <= 5) return m.minutesLeft(minutes);
  const rounded = Math.ceil(minutes / 5) * 5;
  return rounded >= 60 ? m.aboutHoursLeft(Math.round(rounded / 60)) : m.aboutMinutesLeft(rounded);
}
