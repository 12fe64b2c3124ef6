// GraphQL's configuration (PAYGATE_GRAPHQL_…, NODE_ENV): its page, introspection and limits; src/config.ts composes it.
import { z } from "zod";
import { boolean } from "../env.ts";

export const GraphqlEnvSchema = z.object({
  NODE_ENV: z.string().optional().describe("`production` turns the GraphQL introspection and landing page off by default. Default: unset."),
  /** Default: on, except when NODE_ENV=production. */
  PAYGATE_GRAPHQL_INTROSPECTION: boolean.optional().describe("Allow schema introspection on `/graphql`. Default: on, off in production."),
  PAYGATE_GRAPHQL_LANDING_PAGE: boolean
    .optional()
    .describe("The page on `GET /graphql` from a browser (served by paygate itself, works offline). Default: on, off in production."),
  PAYGATE_GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).max(50).default(8).describe("Deepest query accepted. Default: `8`."),
  PAYGATE_GRAPHQL_MAX_COST: z.coerce
    .number()
    .int()
    .min(10)
    .max(100_000)
    .default(1000)
    .describe("Costliest query accepted (graphql-armor's cost model). Default: `1000`."),
});
