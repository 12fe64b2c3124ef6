// The API reference: GET /openapi.json (the generated document) and GET /docs (Swagger UI, its
// assets served from the swagger-ui-dist package: no CDN, it works offline).
import { createRequire } from "node:module";
import path from "node:path";
import express, { Router } from "express";
import { openApiDocument } from "./openapi.ts";

// swagger-ui-dist is CommonJS without types; its folder is all that is needed.
const assets = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>paygate API reference</title>
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
<main id="reference"><h1 style="font:600 1.5rem system-ui;margin:1rem">paygate API reference</h1><div id="swagger-ui"></div></main>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script>
  // validatorUrl null: Swagger UI would otherwise send the document to an outside validator.
  SwaggerUIBundle({ url: "openapi.json", dom_id: "#swagger-ui", validatorUrl: null, deepLinking: true, tryItOutEnabled: false });
</script>
</body>
</html>`;

export function apiReference(): Router {
  const document = openApiDocument();
  const router = Router();
  router.get("/openapi.json", (_req, res) => {
    res.json(document);
  });
  router.get("/docs", (req, res) => {
    // The page's links are relative (so that it works behind a path prefix): at /docs/ they would
    // name /docs/docs/assets/…, a blank page. Sent back to /docs, relatively for the same reason.
    if (req.originalUrl.split("?")[0]?.endsWith("/")) return res.redirect(301, "../docs");
    res.type("html").send(page);
  });
  router.use("/docs/assets", express.static(assets, { index: false, maxAge: "1d" }));
  return router;
}
