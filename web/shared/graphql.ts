// GraphQL over HTTP from a browser page: one POST to /graphql with the page's credential as a
// Bearer token (never a cookie). Failures come back as two kinds the pages can explain: the
// service answered with an error (ApiError: its code, status and message), or it could not be
// reached at all (NetworkError).

export interface FieldProblem {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    message: string,
    /** extensions.code: NOT_FOUND, UNAUTHENTICATED, BAD_USER_INPUT, INVALID_STATE, UPSTREAM_UNAVAILABLE, … */
    readonly code: string,
    /** The HTTP status REST answers the same failure with. */
    readonly status: number,
    readonly reason: string | null = null,
    readonly fields: FieldProblem[] = [],
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export class NetworkError extends Error {
  constructor(message = "The payment service could not be reached") {
    super(message);
    this.name = "NetworkError";
  }
}

interface GraphQLErrorBody {
  message?: string;
  extensions?: { code?: string; status?: number; reason?: string; errors?: FieldProblem[] };
}

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: GraphQLErrorBody[];
}

export function errorOf(body: GraphQLErrorBody | undefined, httpStatus: number): ApiError {
  const extensions = body?.extensions ?? {};
  return new ApiError(
    body?.message ?? `The payment service answered with HTTP ${httpStatus}`,
    extensions.code ?? (httpStatus === 429 ? "RATE_LIMITED" : httpStatus >= 500 ? "INTERNAL_SERVER_ERROR" : "BAD_REQUEST"),
    extensions.status ?? httpStatus,
    extensions.reason ?? null,
    extensions.errors ?? [],
  );
}

export interface RequestOptions {
  /** Sent as Idempotency-Key, so a retried mutation does its work once. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export class GraphQLClient {
  constructor(
    private readonly endpoint: string,
    private readonly credential: string,
  ) {}

  get authorization(): string {
    return `Bearer ${this.credential}`;
  }

  async request<T>(query: string, variables: Record<string, unknown>, options: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { "content-type": "application/json", authorization: this.authorization };
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify({ query, variables }),
        cache: "no-store",
        signal: options.signal ?? null,
      });
    } catch {
      throw new NetworkError();
    }
    let body: GraphQLResponse<T>;
    try {
      body = (await response.json()) as GraphQLResponse<T>;
    } catch {
      // A proxy's HTML error page, or a connection cut mid-body.
      throw response.ok ? new NetworkError() : errorOf(undefined, response.status);
    }
    if (body.errors && body.errors.length > 0) throw errorOf(body.errors[0], response.status);
    if (!body.data) throw errorOf(undefined, response.status);
    return body.data;
  }
}

/** A random Idempotency-Key; crypto.randomUUID exists only in secure contexts, getRandomValues everywhere. */
export function randomKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
