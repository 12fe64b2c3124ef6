// The request bodies of spec 4.1 and 4.2, parsed once for every adapter. Field names are the
// spec's; GraphQL maps its input onto them. Unknown fields are ignored.
import { z } from "zod";
import type { FieldError } from "../errors.ts";
import { isNumericString } from "../money/amounts.ts";

/** The limit on a request's `meta` once serialised (not shown by the spec; documented in the README). */
export const MAX_META_BYTES = 16 * 1024;

const meta = z
  .record(z.string(), z.unknown(), { error: "meta must be a JSON object" })
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= MAX_META_BYTES, `meta must be at most ${MAX_META_BYTES} bytes as JSON`);

export const InitializeBody = z
  .object({
    customer: z.object({
      email: z.string().trim().max(254).pipe(z.email({ error: "customer.email must be a valid e-mail address" })),
      name: z.string().trim().max(200).nullish(),
    }),
    public_key: z.string().min(1).optional(),
    payment_link: z.string().min(1).optional(),
    currency: z.string().trim().min(1),
    amount: z.string().trim().refine(isNumericString, 'amount must be a numeric string such as "100.50"'),
    description: z.string().max(1000).nullish(),
    meta: meta.nullish(),
  })
  .superRefine((body, ctx) => {
    if (body.public_key !== undefined && body.payment_link !== undefined) {
      ctx.addIssue({ code: "custom", path: ["payment_link"], message: "send either public_key or payment_link, not both" });
    }
  });
export type InitializeBody = z.infer<typeof InitializeBody>;

const CURRENCY_ID_FORMAT = 'currency_id must be a numeric string such as "4"';

export const InitiateBody = z.object({
  currency_id: z
    .union([z.string().trim().regex(/^\d{1,9}$/, CURRENCY_ID_FORMAT), z.number().int().min(0).max(999_999_999)], {
      error: (issue) => (issue.input === undefined ? "currency_id is required" : CURRENCY_ID_FORMAT),
    })
    .transform(Number),
  refund_address: z.string().trim().min(1).max(128).nullish(),
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
  return { field, message: issue.message };
}

function article(expected: string): string {
  if (expected === "record") return "a JSON object";
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}
