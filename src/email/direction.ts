// Arabic reads right to left; the other checkout languages left to right.
import type { CheckoutLocale } from "../core/transactions/locales.ts";

export const directionOfLocale = (locale: CheckoutLocale): "rtl" | "ltr" => (locale === "ar" ? "rtl" : "ltr");
