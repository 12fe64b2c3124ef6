// One error body for every failure: { status: "error", message, code, reason, errors }.
import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import { errors, PaygateError } from "../core/errors.ts";

export function sendError(res: Response, error: PaygateError): void {
  res.status(error.status).json({
    status: "error",
    message: error.message,
    code: error.code,
    reason: error.reason ?? error.code,
    errors: error.errors,
  });
}

export const notFound: RequestHandler = (req, res) => {
  sendError(res, new PaygateError("not_found", 404, `No route for ${req.method} ${req.path}`, "route_not_found"));
};

interface BodyParserError {
  type?: string;
  status?: number;
}

export function errorHandler(log: (line: string) => void): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (error instanceof PaygateError) return sendError(res, error);
    const parserError = (error ?? {}) as BodyParserError;
    if (parserError.type === "entity.too.large") {
      return sendError(res, new PaygateError("payload_too_large", 413, "Request body is too large (limit 64 KB)", "payload_too_large"));
    }
    // Never log the request body or headers: they carry keys and customer data.
    log(`error ${req.method} ${req.path} id=${String(res.locals.requestId)}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    sendError(res, errors.internal());
  };
}
