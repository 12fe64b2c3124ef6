// What REST and GraphQL read from request headers before they ask the core: the credential and the
// Idempotency-Key. The core takes plain values; HTTP's forms of them stay here. And the one header
// every API answer with a credential in it carries.
import type { RequestHandler } from "express";

/** The key from `Authorization: Bearer <key>`, or undefined when the header is absent or not Bearer. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  return match?.[1];
}

/** The `Idempotency-Key` header's value (Node joins a repeated header with ", ", which the core refuses as malformed). */
export function idempotencyKeyHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

/**
 * `Cache-Control: no-store` on the API's answers, which carry client secrets and checkout URLs (a
 * credential each) and customers' data: no browser, proxy or CDN may keep them, as GraphQL's answers
 * (Apollo's default) and the checkout page already say. Before the route runs, so its errors carry it too.
 */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader("Cache-Control", "no-store");
  next();
};
