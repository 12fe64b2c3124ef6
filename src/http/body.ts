// JSON bodies only (spec: Content-Type must be application/json). A malformed body is the
// route's own validation error, so each route names the error it answers with; an unknown
// charset or Content-Encoding, or a corrupt compressed body, goes to the error handler (415, 400).
import express, { type RequestHandler } from "express";
import { errors, type FieldError, type PaygateError } from "../core/errors.ts";

const parse = express.json({ limit: "64kb", strict: false, type: () => true });

export function jsonBody(invalid: (errors: FieldError[]) => PaygateError): RequestHandler {
  return (req, res, next) => {
    const hasBody = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
    if (!hasBody) {
      req.body = {};
      return next();
    }
    if (!req.is("application/json")) {
      return next(errors.notJson());
    }
    parse(req, res, (error?: unknown) => {
      if (error && (error as { type?: string }).type === "entity.parse.failed") {
        return next(invalid([{ field: "body", message: "the body is not valid JSON" }]));
      }
      next(error);
    });
  };
}
