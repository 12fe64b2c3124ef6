// What the SDK throws: a refusal of the API (its status and paygate's error body), and a webhook
// whose signature does not verify.

/** paygate's error body: `{ status: "error", message, code, reason, errors }` (docs/rest-api.md, Errors). */
export interface ApiErrorBody {
  status: "error";
  message: string;
  code: string;
  reason: string;
  errors: { field: string; message: string }[];
}

/** The API refused a request (4xx) or could not serve it (5xx). `message` is paygate's own sentence. */
export class PaygateApiError extends Error {
  override readonly name = "PaygateApiError";
  readonly status: number;
  readonly code: string | undefined;
  readonly reason: string | undefined;
  readonly errors: { field: string; message: string }[];

  constructor(status: number, body: unknown) {
    const parsed = isErrorBody(body) ? body : undefined;
    // The message names each refused field too: "400: Validation Error (customer.email: must be an e-mail address)".
    const fields = parsed?.errors?.length ? ` (${parsed.errors.map((e) => `${e.field}: ${e.message}`).join("; ")})` : "";
    super(
      parsed
        ? `${status}: ${parsed.message}${fields}`
        : `${status}: ${typeof body === "string" && body !== "" ? body : "the API refused the request"}`,
    );
    this.status = status;
    this.code = parsed?.code;
    this.reason = parsed?.reason;
    this.errors = parsed?.errors ?? [];
  }
}

/** A GraphQL answer with errors (GraphQL-over-HTTP: the status may still be 200). */
export class PaygateGraphQLError extends Error {
  override readonly name = "PaygateGraphQLError";
  constructor(
    readonly status: number,
    readonly errors: { message: string; extensions?: Record<string, unknown> }[],
  ) {
    super(`${status}: ${errors.map((e) => e.message).join("; ") || "the GraphQL request failed"}`);
  }
}

/** A webhook that is not paygate's: a bad or missing signature, an old timestamp, or a body that is no event. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

function isErrorBody(body: unknown): body is ApiErrorBody {
  return typeof body === "object" && body !== null && "message" in body && typeof body.message === "string";
}
