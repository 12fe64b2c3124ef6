import { defineMiddlewares } from "@medusajs/framework/http";

// The webhook's signature covers the exact bytes paygate sent: keep them.
export default defineMiddlewares({
  routes: [{ matcher: "/hooks/paygate", method: ["POST"], bodyParser: { preserveRawBody: true } }],
});
