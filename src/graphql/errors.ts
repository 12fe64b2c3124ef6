// Core failures as GraphQL errors: the same message, the REST status in `extensions.status`,
// and a GraphQL code (BAD_USER_INPUT, UNAUTHENTICATED, NOT_FOUND, INVALID_STATE, …).
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { errors, type ErrorCode, type FieldError, PaygateError } from "../core/errors.ts";
import { HTTP_STATUS } from "../edge/status.ts";

export const CODES: Record<ErrorCode, string> = {
  bad_request: "BAD_REQUEST",
  validation_error: "BAD_USER_INPUT",
  unauthenticated: "UNAUTHENTICATED",
  forbidden: "FORBIDDEN",
  not_found: "NOT_FOUND",
  invalid_state: "INVALID_STATE",
  kyb_required: "KYB_REQUIRED",
  upstream_unavailable: "UPSTREAM_UNAVAILABLE",
  database_unavailable: "DATABASE_UNAVAILABLE",
  idempotency_conflict: "IDEMPOTENCY_CONFLICT",
  conflict: "CONFLICT",
  gone: "GONE",
  unsupported_media_type: "BAD_REQUEST",
  payload_too_large: "BAD_REQUEST",
  rate_limited: "RATE_LIMITED",
  internal_error: "INTERNAL_SERVER_ERROR",
};

/** Field paths in the graph's names: `public_key` → `publicKey`. */
const camel = (field: FieldError): FieldError => ({
  ...field,
  field: field.field.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()),
});

function extensionsOf(error: PaygateError) {
  return {
    code: CODES[error.code],
    status: HTTP_STATUS[error.code],
    reason: error.reason,
    errors: error.errors.map(camel),
    ...(error.hint === null ? {} : { hint: error.hint }),
  };
}

export function toGraphQLError(error: PaygateError): GraphQLError {
  return new GraphQLError(error.message, { extensions: extensionsOf(error) });
}

/** A request that never reached execution (unreadable body, ambiguous credential), as GraphQL-over-HTTP answers it. */
export function graphqlErrorBody(error: PaygateError): { errors: GraphQLFormattedError[] } {
  return { errors: [{ message: error.message, extensions: extensionsOf(error) }] };
}

/** Runs a resolver's core call, turning core failures into GraphQL errors. */
export async function fromCore<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PaygateError) throw toGraphQLError(error);
    throw error;
  }
}

// Apollo's own request errors, with the status REST gives the same kind of failure.
const REQUEST_ERROR_STATUS: Record<string, number> = {
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  BAD_USER_INPUT: 400,
  BAD_REQUEST: 400,
  PERSISTED_QUERY_NOT_FOUND: 400,
  PERSISTED_QUERY_NOT_SUPPORTED: 400,
  OPERATION_RESOLUTION_FAILURE: 400,
};

/** The HTTP status an error stands for (500 for the unexpected). */
export function statusOf(formatted: GraphQLFormattedError): number {
  const status = formatted.extensions?.status;
  return typeof status === "number" ? status : 500;
}

// "Did you mean …?" spells out the schema's fields, types and enum values.
const SUGGESTION = /\s*Did you mean [^?]*\?/g;

/**
 * Masks anything unexpected as the spec's 500 (the plugin in server.ts logs it) and never sends a
 * stack; without introspection, hides the suggestions that would reveal the schema.
 */
export function formatError(options: { hideSuggestions: boolean }) {
  return (formatted: GraphQLFormattedError): GraphQLFormattedError => {
    const code = String(formatted.extensions?.code ?? "INTERNAL_SERVER_ERROR");
    if (code !== "INTERNAL_SERVER_ERROR") {
      const status = formatted.extensions?.status ?? REQUEST_ERROR_STATUS[code] ?? 400;
      const message = options.hideSuggestions ? formatted.message.replace(SUGGESTION, "") : formatted.message;
      return { message, locations: formatted.locations, path: formatted.path, extensions: { ...formatted.extensions, code, status } };
    }
    const internal = errors.internal();
    return {
      message: internal.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code, status: HTTP_STATUS[internal.code], reason: internal.reason, errors: [] },
    };
  };
}
