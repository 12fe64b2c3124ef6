// One error body for every failure: { status: "error", message, code, reason, errors[, hint] } on REST,
// the body an API declares for its own paths elsewhere (GraphQL's { errors: [...] } on /graphql,
// declared by the app with errorBodyOn). The status comes from the code.
import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import { errors, PaygateError, RetryLaterError } from "../core/errors.ts";
import type { Logger } from "../logging.ts";
import { HTTP_STATUS, RETRY_AFTER_SECONDS } from "./status.ts";
import { routeOf } from "../observability/route.ts";

/** How an API writes a failure's body; the status and Retry-After are the edge's. */
export type ErrorBody = (error: PaygateError) => unknown;

const restErrorBody: ErrorBody = (error) => ({
  status: "error",
  message: error.message,
  code: error.code,
  reason: error.reason,
  errors: error.errors,
  // An extension: what the caller most likely got wrong, where the message is the spec's.
  ...(error.hint === null ? {} : { hint: error.hint }),
});

/**
 * Failures of requests whose path starts with `prefix` get `body`'s shape, from the first middleware
 * on (rate limits, CORS, unreadable bodies), so that the edge need not know the APIs behind it.
 */
export function errorBodyOn(prefix: string, body: ErrorBody): RequestHandler {
  return (req, res, next) => {
    if (req.originalUrl.startsWith(prefix)) res.locals.errorBody = body;
    next();
  };
}

export function sendError(res: Response, error: PaygateError): void {
  const status = HTTP_STATUS[error.code];
  res.locals.errorCode = error.reason;
  if (status === 503) res.setHeader("Retry-After", String(RETRY_AFTER_SECONDS));
  if (error instanceof RetryLaterError) res.setHeader("Retry-After", String(error.retryAfterSeconds));
  const body: ErrorBody = res.locals.errorBody ?? restErrorBody;
  res.status(status).json(body(error));
}

export const notFound: RequestHandler = (req, res) => sendError(res, errors.routeNotFound(req.method, req.path));

/** The largest JSON body (express.json's `64kb`), as a 413 names it. */
export const JSON_BODY_LIMIT = "64 KB";

/** The request's own plumbing failed in a way the client caused: its path, headers or body. */
interface PlumbingError {
  status?: number;
  type?: string;
  charset?: string;
  encoding?: string;
}

/**
 * Failures of path decoding and body reading, as client errors. Their own messages are never
 * echoed or logged: a JSON parser's message quotes the body, and bodies carry keys.
 */
export function clientErrorOf(error: unknown): PaygateError | null {
  if (error instanceof PaygateError) return error;
  if (error instanceof URIError) {
    return errors.malformedPath();
  }
  const failure = (typeof error === "object" && error !== null ? error : {}) as PlumbingError;
  switch (failure.type) {
    case "entity.too.large":
      return errors.payloadTooLarge(JSON_BODY_LIMIT);
    case "charset.unsupported":
      return errors.unsupportedMediaType(`The charset ${printable(failure.charset)} is not supported: send the JSON body in UTF-8`);
    case "encoding.unsupported":
      return errors.unsupportedMediaType(
        `Content-Encoding ${printable(failure.encoding)} is not supported: send the body uncompressed, or with gzip, deflate or br`,
      );
    case "entity.parse.failed":
      return errors.badRequest("The body is not valid JSON", "invalid_json");
    case "request.aborted":
      return errors.badRequest("The request ended before its whole body arrived", "request_aborted");
  }
  if (failure.status !== undefined && failure.status >= 400 && failure.status < 500) {
    return errors.unreadableBody();
  }
  return null;
}

const printable = (value: string | undefined) =>
  JSON.stringify(
    String(value ?? "")
      .slice(0, 40)
      .toLowerCase(),
  );

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const known = clientErrorOf(error);
    if (known) return sendError(res, known);
    // Unexpected: the stack goes to the log with the request id, never to the client. Never the
    // request's body or headers: they carry keys and customer data.
    logger.error({ request_id: res.locals.requestId, err: error }, `unexpected error in ${req.method} ${routeOf(req)}`);
    res.locals.errorClass = error instanceof Error ? error.constructor.name : typeof error;
    sendError(res, errors.internal());
  };
}
