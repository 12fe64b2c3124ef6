// Core failures as GraphQL errors: the same message, the REST status in `extensions.status`,
// and a GraphQL code (BAD_USER_INPUT, UNAUTHENTICATED, NOT_FOUND, INVALID_STATE, …).
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { unwrapResolverError } from "@apollo/server/errors";
import { errors, type ErrorCode, type FieldError, PaygateError } from "../core/errors.ts";

const CODES: Record<ErrorCode, string> = {
  validation_error: "BAD_USER_INPUT",
  unauthenticated: "UNAUTHENTICATED",
  not_found: "NOT_FOUND",
  invalid_state: "INVALID_STATE",
  kyb_required: "KYB_REQUIRED",
  upstream_unavailable: "UPSTREAM_UNAVAILABLE",
  idempotency_conflict: "IDEMPOTENCY_CONFLICT",
  unsupported_media_type: "BAD_REQUEST",
  payload_too_large: "BAD_REQUEST",
  internal_error: "INTERNAL_SERVER_ERROR",
};

/** Field paths in the graph's names: `public_key` → `publicKey`. */
const camel = (field: FieldError): FieldError => ({
  ...field,
  field: field.field.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()),
});

function toGraphQLError(error: PaygateError): GraphQLError {
  return new GraphQLError(error.message, {
    extensions: {
      code: CODES[error.code],
      status: error.status,
      reason: error.reason ?? error.code,
      errors: error.errors.map(camel),
    },
  });
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

/** Masks anything unexpected as the spec's 500 (details go to the log) and never sends a stack. */
export function formatError(log: (line: string) => void) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const code = String(formatted.extensions?.code ?? "INTERNAL_SERVER_ERROR");
    if (code !== "INTERNAL_SERVER_ERROR") {
      const status = formatted.extensions?.status ?? REQUEST_ERROR_STATUS[code] ?? 400;
      return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { ...formatted.extensions, code, status } };
    }
    const original = unwrapResolverError(error);
    log(`graphql error at ${formatted.path?.join(".") ?? "(request)"}: ${original instanceof Error ? (original.stack ?? original.message) : String(original)}`);
    const internal = errors.internal();
    return {
      message: internal.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code, status: internal.status, reason: internal.reason, errors: [] },
    };
  };
}
