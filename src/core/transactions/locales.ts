// The languages of the hosted checkout (web/checkout/locales/): a merchant may fix one at initialize
// (`locale`); otherwise the customer's browser decides.

export const CHECKOUT_LOCALES = ["en", "fr", "es", "pt", "de", "ar"] as const;

export type CheckoutLocale = (typeof CHECKOUT_LOCALES)[number];
