// The front door: `GET /` leads to the dashboard, where a merchant's people sign in, and names the API
// reference, so the address the start-up line prints answers with something a person can use (issue 28).
import { Router } from "express";

export const DASHBOARD_PATH = "/dashboard";
export const API_REFERENCE_PATH = "/docs";

const page = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>paygate</title></head>
<body>
<main><h1>paygate</h1>
<p><a href="${DASHBOARD_PATH}">Open the dashboard</a> · <a href="${API_REFERENCE_PATH}">API reference</a> (<a href="/openapi.json">OpenAPI</a>, <a href="/graphql">GraphQL</a>)</p>
</main>
</body>
</html>`;

export function frontDoor(): Router {
  const router = Router();
  router.get("/", (_req, res) => {
    // A relative Location keeps working behind any proxy; the Link header names the API reference for
    // clients that do not follow redirects (RFC 8631: service-doc, service-desc).
    res
      .status(302)
      .location(DASHBOARD_PATH)
      .set("Link", `<${API_REFERENCE_PATH}>; rel="service-doc", </openapi.json>; rel="service-desc"`)
      .type("html")
      .send(page);
  });
  return router;
}
