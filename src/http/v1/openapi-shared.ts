// What every REST operation's OpenAPI description shares (src/http/openapi.ts assembles them): the
// security scheme, the error body and the error cases any route can answer with, the rate-limit headers,
// and the helpers that turn error cases, bodies and query parameters into the document's parts.
import { z } from "zod";
import { type ErrorCode, errors, PaygateError } from "../../core/errors.ts";
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, parseListQuery } from "../../core/lists.ts";
import { tooManyFailedAuthentications, tooManyRequests } from "../../core/rate-limits.ts";
import { JSON_BODY_LIMIT } from "../../edge/errors.ts";
import { HTTP_STATUS } from "../../edge/status.ts";

/** The security scheme of the API keys (registered by src/http/openapi.ts). */
export const BEARER = "bearer";
/** A route that takes a secret key only. */
export const secretKey: Record<string, string[]>[] = [{ [BEARER]: [] }];

export const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

const ERROR_CODES = Object.keys(HTTP_STATUS) as [ErrorCode, ...ErrorCode[]];

export const ErrorResponse = z
  .object({
    status: z.literal("error"),
    message: z.string().meta({ description: "The specification's message where it fixes one; otherwise what went wrong and what to do." }),
    code: z.enum(ERROR_CODES).meta({ description: "The broad class; it decides the HTTP status." }),
    reason: z.string().meta({ description: "The narrower cause, for callers that branch on it (docs/rest-api.md, Errors)." }),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).meta({ description: "Field problems; empty otherwise." }),
    hint: z.string().optional().meta({
      description:
        "Not in the spec: what was most likely meant, where the message is the spec's (a secret key sent to initialize, a key of the other mode).",
    }),
  })
  .meta({ id: "Error" });

/** A failure a route answers with: the error the code throws (its example), and when. */
export interface ErrorCase {
  error: PaygateError;
  when: string;
}

/** The error a check throws, made by running it: an example that cannot drift from the check. */
export function refusalOf(check: () => unknown): PaygateError {
  try {
    check();
  } catch (error) {
    if (error instanceof PaygateError) return error;
    throw error;
  }
  throw new Error("the check accepted the example it should refuse");
}

const integerHeader = (description: string) => ({ description, schema: { type: "integer" as const, minimum: 0 } });

/** The IETF RateLimit headers (draft 6) of the request's bucket (docs/rest-api.md, Rate limits). */
const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": integerHeader("Requests the bucket (this API key, or this address without one) may make per window."),
  "RateLimit-Remaining": integerHeader("Requests left in the window under way."),
  "RateLimit-Reset": integerHeader("Seconds until the window ends."),
  "RateLimit-Policy": { description: "The limit and its window in seconds: `100;w=1`.", schema: { type: "string" as const } },
};

const RETRY_AFTER = { "Retry-After": integerHeader("Seconds to wait before retrying.") };

/** Extra headers of an error status. */
function errorHeaders(status: number) {
  if (status === 503) return { headers: RETRY_AFTER };
  if (status === 429) return { headers: { ...RETRY_AFTER, ...RATE_LIMIT_HEADERS } };
  return {};
}

/** Responses of one route's failures, grouped by status, with an example per cause. */
export function errorResponses(cases: ErrorCase[]) {
  const byStatus = new Map<number, ErrorCase[]>();
  for (const c of cases) {
    const status = HTTP_STATUS[c.error.code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), c]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      {
        description: list.map((c) => `\`${c.error.reason}\`: ${c.when}`).join("; "),
        ...errorHeaders(status),
        content: {
          "application/json": {
            schema: ErrorResponse,
            examples: Object.fromEntries(
              list.map(({ error }) => [
                error.reason,
                { value: { status: "error", message: error.message, code: error.code, reason: error.reason, errors: [] } },
              ]),
            ),
          },
        },
      },
    ]),
  );
}

// A change made with a key rolled by a dashboard user whose role may not make it (issue 41).
export const KEY_ROLE: ErrorCase = {
  error: errors.keyRoleForbidden("developer", "manage_pricing"),
  when: "the key was rolled in the dashboard by a user whose role may not make this change (docs/security.md, Keys and roles)",
};

// Failures every route can answer with.
export const ANY: ErrorCase[] = [
  {
    error: errors.ambiguousCredential(2),
    when: "two Authorization headers",
  },
  {
    error: errors.credentialInBrowser("secret_key"),
    when: "a secret key on a request with an `Origin` header (a browser), refused before anything else and without CORS headers (docs/rest-api.md, Browsers and CORS)",
  },
  {
    error: tooManyRequests({ kind: "test_key" }, { hits: 26, limit: 25, windowMs: 1000, resetMs: 1000 }),
    when: "the API key (or, without one, the client address) made more requests than its limit in the window under way",
  },
  {
    error: tooManyFailedAuthentications({ hits: 20, limit: 20, windowMs: 60_000, resetMs: 37_000 }),
    when: "the client address failed to authenticate too often in the window under way: every request from it is refused until the window ends",
  },
  {
    error: errors.databaseUnavailable("database_unreachable"),
    when: "the database does not answer",
  },
  {
    error: errors.internal(),
    when: "a bug; the stack is in the log under the X-Request-Id",
  },
];
export const WITH_PATH: ErrorCase[] = [
  {
    error: errors.malformedPath(),
    when: "a malformed path",
  },
];
export const WITH_BODY: ErrorCase[] = [
  {
    error: errors.unreadableBody(),
    when: "a corrupt compressed body",
  },
  {
    error: errors.notJson(),
    when: "another media type, charset or Content-Encoding",
  },
  { error: errors.payloadTooLarge(JSON_BODY_LIMIT), when: "a body over 64 KB" },
];
export const SECRET_ONLY: ErrorCase = {
  error: errors.secretKeyRequired(),
  when: "no key, a public key, a client secret, or an unknown or revoked secret key",
};

export const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
/** A success of a rate-limited route: its body, and the bucket's RateLimit headers. */
export const limited = <T extends z.ZodType>(schema: T, description: string) => ({ ...json(schema, description), headers: RATE_LIMIT_HEADERS });

export const queryParam = (name: string, description: string, schema: z.ZodType = z.string()) =>
  schema.optional().meta({ param: { name, in: "query" }, description });
// Every list's page size (src/core/lists.ts).
const pageLimit = queryParam("limit", `Items per page, 1–${LIST_LIMIT_MAX}; default ${LIST_LIMIT_DEFAULT}.`, z.string().regex(/^\d+$/));
/** A list's page parameters; `after`: what `starting_after` names and why pages do not shift. */
export const pageParams = (after: string) => ({ limit: pageLimit, starting_after: queryParam("starting_after", after) });

/**
 * A merchant's list of `noun`s, paged by `starting_after`: its query (limit and cursor) and its two refusals, each
 * built by the check itself (a bad query, a cursor of no such `noun`).
 */
export function pagedList(params: Parameters<typeof parseListQuery>[0], noun: string) {
  return {
    query: z.object({
      limit: queryParam("limit", `Items per page, 1–${LIST_LIMIT_MAX}; default ${LIST_LIMIT_DEFAULT}.`),
      starting_after: queryParam("starting_after", `The \`id\` of the last ${noun} of the previous page.`),
    }),
    refusals: [
      {
        error: refusalOf(() => parseListQuery(params, { limit: "0" })),
        when: "an invalid, repeated or unknown query parameter; the message and `errors` name each",
      },
      { error: errors.unknownCursor("starting_after", "…"), when: `a \`starting_after\` that is no ${noun} of this merchant and mode` },
    ] satisfies ErrorCase[],
  };
}

/** The Idempotency-Key header of a route that makes something, with what a retry answers there. */
export const idempotencyKeyParam = (description: string) =>
  z.object({
    "Idempotency-Key": z
      .string()
      .optional()
      .meta({ param: { name: "Idempotency-Key", in: "header" }, description }),
  });
