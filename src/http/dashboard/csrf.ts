// Cross-site request forgery, refused twice over on every change (POST, PUT, PATCH, DELETE):
// - a browser's Origin (or Sec-Fetch-Site) must say the request came from paygate's own origin;
// - the X-CSRF-Token header must carry the session's CSRF token (GET /dashboard/api/session gives
//   it; a page on another origin cannot read it), compared in constant time.
// Signing in and using a sign-in link have no session yet: the Origin check and the cookie's
// SameSite=Lax cover them.
import type { Request, RequestHandler } from "express";
import { errors } from "../../core/errors.ts";
import { sameSecret } from "../../core/secrets.ts";
import { CSRF_HEADER, sessionOf } from "./session.ts";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export const isChange = (req: Request): boolean => !SAFE.has(req.method);

/** Refuses a change whose Origin is not PAYGATE_PUBLIC_URL's nor the request's own host's. */
export function sameOriginChanges(publicUrl: string): RequestHandler {
  const publicOrigin = new URL(publicUrl).origin;
  return (req, _res, next) => {
    if (!isChange(req)) return next();
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const own = `${req.protocol}://${req.headers.host ?? ""}`;
      if (origin !== publicOrigin && origin !== own) {
        return next(errors.csrfRejected(`Changes to the dashboard come from its own pages only; this request came from ${origin.slice(0, 100)}`));
      }
    } else if (req.headers["sec-fetch-site"] === "cross-site") {
      return next(errors.csrfRejected("Changes to the dashboard come from its own pages only; this request came from another site"));
    }
    next();
  };
}

/** Requires the session's CSRF token on a change (after the session middleware). */
export function csrfToken(isPublic: (req: Request) => boolean): RequestHandler {
  return (req, res, next) => {
    if (!isChange(req) || isPublic(req)) return next();
    const sent = req.get(CSRF_HEADER);
    if (!sent) {
      return next(errors.csrfRejected(`This change needs the ${CSRF_HEADER} header: send the csrf_token of GET /dashboard/api/session`));
    }
    if (!sameSecret(sent, sessionOf(res).csrfToken)) {
      return next(
        errors.csrfRejected(`The ${CSRF_HEADER} header does not match this session: read csrf_token again from GET /dashboard/api/session`),
      );
    }
    next();
  };
}
