import type { Request } from "express";

/**
 * Whether a form post comes from this service's own pages (the refund claim page's and the invoice page's): the
 * Origin, else Sec-Fetch-Site. Those pages send `Referrer-Policy: no-referrer`, so a browser sends `Origin: null` on
 * their own forms, and `null` is judged by Sec-Fetch-Site.
 */
export function fromOwnOrigin(req: Request, publicUrl: string): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== "null") {
    return origin === new URL(publicUrl).origin || origin === `${req.protocol}://${req.headers.host ?? ""}`;
  }
  const site = req.headers["sec-fetch-site"];
  return origin === "null" ? site === "same-origin" : site !== "cross-site";
}
