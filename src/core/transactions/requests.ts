// The request bodies of spec 4.1 and 4.2, parsed once for every adapter. Field names are the
// spec's; GraphQL maps its input onto them. Unknown fields are ignored.
import { z } from "zod";
import type { FieldError } from "../errors.ts";
import { isNumericString } from "../money/amounts.ts";
import { CRYPTO_ID_NAMES } from "../money/currencies.ts";
import { CHECKOUT_LOCALES } from "./locales.ts";
import { PolicyFields } from "../policies.ts";

/** The limit on a request's `meta` once serialised (not shown by the spec; documented in docs/rest-api.md, Requests). */
export const MAX_META_BYTES = 16 * 1024;
/** How deep `meta` may nest (the object itself is level 1). Stripe's metadata is flat; a few levels hold an order's shape. */
export const MAX_META_DEPTH = 8;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether PostgreSQL can store the text: it refuses NUL characters and broken UTF-16 (a lone surrogate). */
export function isStorableText(text: string): boolean {
  return !text.includes("\u0000") && !LONE_SURROGATE.test(text);
}

const STORABLE = "must not contain NUL characters or broken Unicode";
/** A string the database can store; the field's name is put before the message by toFieldError. */
const text = () => z.string().refine(isStorableText, STORABLE);

const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * What is wrong with a `meta` object, or null. Walked without recursion, so no nesting can exhaust
 * the stack; `__proto__` is refused rather than dropped (JSON.parse keeps it as a key, but most
 * object code would turn it into a prototype and lose it).
 */
export function metaProblem(meta: Record<string, unknown>): string | null {
  const pending: { value: unknown; depth: number; path: string }[] = [{ value: meta, depth: 1, path: "meta" }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, depth, path } = next;
    if (typeof value === "string") {
      if (!isStorableText(value)) return `${path} ${STORABLE}`;
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth > MAX_META_DEPTH) return `meta may nest at most ${MAX_META_DEPTH} levels deep (${path} is deeper)`;
    for (const [key, child] of Object.entries(value)) {
      if (key === "__proto__") return `${path} has the key "__proto__", which is not accepted`;
      if (!isStorableText(key)) return `${path} has a key that ${STORABLE}`;
      pending.push({ value: child, depth: depth + 1, path: `${path}.${key}` });
    }
  }
  if (Buffer.byteLength(JSON.stringify(meta)) > MAX_META_BYTES) return `meta must be at most ${MAX_META_BYTES} bytes as JSON`;
  return null;
}

// z.custom keeps the parsed object as it is (z.record would copy it, and lose a `__proto__` key on the way).
const meta = z
  .custom<Record<string, unknown>>(isJsonObject, { error: "meta must be a JSON object" })
  .superRefine((value, ctx) => {
    const problem = metaProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  // For the generated OpenAPI document (src/http/openapi.ts): z.custom has no JSON Schema of its own.
  .meta({
    type: "object",
    additionalProperties: true,
    description: `The merchant's own JSON object, echoed back: at most ${MAX_META_BYTES} bytes as JSON, ${MAX_META_DEPTH} levels deep, no "__proto__" key, no NUL characters.`,
  });

/**
 * Initialize's fields that a customer's credential may send: a public key and a payment link ship in
 * browsers, so whatever they send, the customer may have chosen.
 */
const CustomerFields = {
  customer: z.object({
    email: z
      .string()
      .trim()
      .max(254)
      .pipe(z.email({ error: "customer.email must be a valid e-mail address" }))
      .meta({ example: "ada@example.com" }),
    name: text().trim().max(200).nullish().meta({ example: "Ada Obi" }),
  }),
  public_key: text().min(1).optional().meta({ description: "The public key, when not sent as `Authorization: Bearer`." }),
  payment_link: text().min(1).optional().meta({ description: "A payment link slug (`pl_…`) instead of a key; it decides merchant and mode." }),
  currency: text().trim().min(1).meta({ description: "The fiat currency: `USD` or `NGN`.", example: "USD" }),
  amount: z
    .string()
    .trim()
    .refine(isNumericString, 'amount must be a numeric string such as "100.50"')
    .meta({ description: "A decimal string: more than 0, at most 999999999999.99, at most 2 decimal places.", example: "100.50" }),
  description: text().max(1000).nullish().meta({ example: "Order #42" }),
  meta: meta.nullish(),
  return_url: text().trim().min(1).nullish().meta({
    description:
      "Where the hosted checkout sends the customer back: an http(s) URL, https on a public host in live mode (the rules of a webhook URL of the transaction's mode).",
    example: "https://shop.example.com/orders/42",
  }),
  cancel_url: text().trim().min(1).nullish().meta({
    description: 'The hosted checkout\'s "back to the shop" link, shown before paying: an http(s) URL, with the rules of return_url.',
    example: "https://shop.example.com/cart",
  }),
  locale: z
    .enum(CHECKOUT_LOCALES, { error: `locale must be one of ${CHECKOUT_LOCALES.join(", ")}` })
    .nullish()
    .meta({
      description: `The hosted checkout's language: one of ${CHECKOUT_LOCALES.join(", ")}. Absent: the customer's browser decides.`,
      example: "fr",
    }),
};

export const InitializeBody = z.object({ ...CustomerFields, ...PolicyFields });
// Which credential may come with which is initialize's rule (credentialOf, src/core/transactions/initialize.ts).
export type InitializeBody = z.infer<typeof InitializeBody>;

export const CUSTOMER_FIELDS: readonly string[] = Object.keys(CustomerFields);
/**
 * The merchant's rules: every other field. Each loosens what the merchant accepts (tolerance,
 * confirmations, expiry, late payments: PolicyFields), so only the merchant's secret key sets them
 * (issue 41; initialize enforces it). A field added later is the merchant's until listed above.
 */
export const MERCHANT_RULE_FIELDS: readonly string[] = Object.keys(InitializeBody.shape).filter((field) => !CUSTOMER_FIELDS.includes(field));

/** The merchant's rules the request sets (a null sets none), in MERCHANT_RULE_FIELDS' order. */
export function merchantRulesOf(body: InitializeBody): string[] {
  const given: Record<string, unknown> = body;
  return MERCHANT_RULE_FIELDS.filter((field) => given[field] !== undefined && given[field] !== null);
}

const CURRENCY_ID_FORMAT = 'currency_id must be a numeric string such as "4"';

export const InitiateBody = z.object({
  currency_id: z
    .union(
      [
        z
          .string()
          .trim()
          .regex(/^\d{1,9}$/, CURRENCY_ID_FORMAT),
        z.number().int().min(0).max(999_999_999),
      ],
      {
        error: (issue) => (issue.input === undefined ? "currency_id is required" : CURRENCY_ID_FORMAT),
      },
    )
    .transform(Number)
    .meta({ description: `The crypto currency: ${CRYPTO_ID_NAMES} (a numeric string or an integer).`, example: "4" }),
  refund_address: text()
    .trim()
    .min(1)
    .max(128)
    .nullish()
    .meta({ description: "Where to refund, a valid address of the chosen currency's network in the transaction's mode." }),
  network: text().trim().min(1).max(32).nullish().meta({
    description:
      "The network to pay on (an extension): for USDT ethereum (ERC-20), bsc (BEP-20) or tron (TRC-20); BTC bitcoin, LTC litecoin, ETH ethereum, BNB bsc. Absent: the merchant's default network for the coin in this mode (set in the dashboard or CLI), else the coin's own default (ethereum for USDT).",
    example: "bsc",
  }),
});
export type InitiateBody = z.infer<typeof InitiateBody>;

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): Parsed<z.output<S>> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, errors: result.error.issues.map(toFieldError) };
}

function toFieldError(issue: z.core.$ZodIssue): FieldError {
  const field = issue.path.map(String).join(".") || "body";
  if (issue.code === "invalid_type") {
    // Zod does not keep the input; its default message says what it received.
    if (/received undefined$/.test(issue.message)) return { field, message: `${field} is required` };
    if (issue.message.startsWith("Invalid input")) return { field, message: `${field} must be ${article(issue.expected)}` };
  }
  // Shared checks say "must …"; the field they concern goes first.
  if (issue.message.startsWith("must ")) return { field, message: `${field} ${issue.message}` };
  return { field, message: issue.message };
}

function article(expected: string): string {
  if (expected === "record") return "a JSON object";
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}
