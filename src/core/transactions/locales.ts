// The languages of the hosted checkout (web/checkout/locales/): a merchant may fix one at initialize
// (`locale`); otherwise the customer's browser decides.

export const CHECKOUT_LOCALES = ["en", "fr", "es", "pt", "de", "ar"] as const;

export type CheckoutLocale = (typeof CHECKOUT_LOCALES)[number];

/** A stored language read back: one of the checkout's, or null (none set, or not one of them). */
export const checkoutLocaleOrNull = (value: string | null): CheckoutLocale | null =>
  (CHECKOUT_LOCALES as readonly string[]).includes(value ?? "") ? (value as CheckoutLocale) : null;
