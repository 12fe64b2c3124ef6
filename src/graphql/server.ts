// POST /graphql: Apollo Server on the Express app, schema-first from schema.graphql. CORS preflights
// (OPTIONS) never reach it, and neither does a secret key from a browser: src/edge/cors.ts answers
// both first. Apollo's CSRF prevention (on by default) still applies to every request it runs.
import { readFileSync } from "node:fs";
import { ApolloServer, type ApolloServerPlugin } from "@apollo/server";
import { unwrapResolverError } from "@apollo/server/errors";
import { ApolloServerPluginLandingPageDisabled } from "@apollo/server/plugin/disabled";
import { expressMiddleware } from "@as-integrations/express5";
import { ApolloArmor } from "@escape.tech/graphql-armor";
import { makeExecutableSchema } from "@graphql-tools/schema";
import express, { type RequestHandler } from "express";
import type { GraphQLSchema, ValidationRule } from "graphql";
import type { PaymentGateway } from "../core/gateway.ts";
import { bearerToken, idempotencyKeyHeader } from "../edge/headers.ts";
import { clientAddress, moreRequests, type RateLimitOptions } from "../edge/rate-limits.ts";
import { RETRY_AFTER_SECONDS } from "../edge/status.ts";
import type { Logger } from "../logging.ts";
import type { GraphQLContext } from "./context.ts";
import { formatError, statusOf } from "./errors.ts";
import { localLandingPage } from "./landing-page.ts";
import { mutationLimits } from "./mutation-limits.ts";
import { resolvers } from "./resolvers.ts";

/** graphql-js's parser limit on tokens (armor's own is off: see below). */
export const MAX_TOKENS = 2000;

export const SCHEMA_FILE = new URL("../../schema.graphql", import.meta.url);

export interface GraphQLOptions {
  /** Schema introspection; off by default, as in production. */
  introspection: boolean;
  /** The page on GET /graphql in a browser (served locally: landing-page.ts); off by default. */
  landingPage: boolean;
  /** Limits against abusive queries (defaults in docs/configuration.md, GraphQL). */
  maxDepth?: number;
  maxCost?: number;
}

export interface MountedGraphQL {
  handler: RequestHandler[];
  /** The executable schema and the limits' validation rules, for the subscription transports (subscriptions.ts). */
  schema: GraphQLSchema;
  validationRules: ValidationRule[];
  stop(): Promise<void>;
}

/** `limits`: the app's rate limits, against which each mutation field after a request's first counts too. */
export async function createGraphQL(
  gateway: PaymentGateway,
  options: GraphQLOptions,
  logger: Logger,
  limits?: RateLimitOptions,
): Promise<MountedGraphQL> {
  const countMore = limits ? moreRequests(limits) : null;
  const schema = makeExecutableSchema<GraphQLContext>({ typeDefs: readFileSync(SCHEMA_FILE, "utf8"), resolvers });
  const armor = new ApolloArmor({
    maxDepth: { n: options.maxDepth ?? 8 },
    costLimit: { maxCost: options.maxCost ?? 1000 },
    maxAliases: { n: 10 },
    maxDirectives: { n: 20 },
    // graphql-js's own token limit (parseOptions below) instead: armor's re-parses in a plugin hook,
    // and Apollo answers any error thrown there with HTTP 500.
    maxTokens: { enabled: false },
    // Suggestions would spell out the schema to a client that may not introspect it.
    blockFieldSuggestion: { enabled: !options.introspection },
  });
  const protection = armor.protect();
  const server = new ApolloServer<GraphQLContext>({
    schema,
    ...protection,
    parseOptions: { maxTokens: MAX_TOKENS },
    introspection: options.introspection,
    includeStacktraceInErrorResponses: false,
    logger,
    // The service decides how it stops (src/main.ts): Apollo's own SIGTERM handler would refuse the
    // GraphQL requests still in flight and send the signal again.
    stopOnTerminationSignals: false,
    formatError: formatError({ hideSuggestions: !options.introspection }),
    // graphql-armor's and the plugin subpaths' typings name Apollo's CommonJS build; the objects are the same.
    plugins: [
      ...protection.plugins,
      httpStatusPlugin(logger),
      mutationLimits(),
      options.landingPage ? localLandingPage() : ApolloServerPluginLandingPageDisabled(),
    ] as unknown as ApolloServerPlugin<GraphQLContext>[],
  });
  await server.start();
  const middleware = expressMiddleware(server, {
    context: async ({ req, res }) => ({
      gateway,
      bearerToken: bearerToken(req.headers.authorization),
      clientAddress: clientAddress(req),
      idempotencyKey: idempotencyKeyHeader(req.headers["idempotency-key"]),
      requestId: String(res.locals.requestId),
      seenMerchant: (id: number) => {
        res.locals.merchantId = id;
      },
      seenErrorReasons: (reasons: string[]) => {
        res.locals.errorReasons = reasons;
      },
      ...(countMore ? { countMoreRequests: (hits: number) => countMore(req, res, hits) } : {}),
    }),
  });
  return {
    handler: [express.json({ limit: "64kb" }), middleware],
    schema,
    validationRules: protection.validationRules,
    stop: () => server.stop(),
  };
}

/**
 * HTTP statuses as the GraphQL-over-HTTP specification gives them: a request that never executed
 * (syntax, validation, limits) is a 4xx, whatever stage refused it; an unavailable database is a
 * 503 with Retry-After. Unexpected errors are logged here, with the request id and the stack.
 */
function httpStatusPlugin(logger: Logger): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue }) {
          for (const error of errors) {
            if (error.extensions?.code !== undefined) continue;
            const original = unwrapResolverError(error);
            logger.error(
              { request_id: contextValue.requestId, err: original, path: error.path?.join(".") },
              "unexpected error in a GraphQL resolver",
            );
          }
        },
        async willSendResponse({ response, contextValue }) {
          if (response.body.kind !== "single") return;
          const { errors, data } = response.body.singleResult;
          if (!errors || errors.length === 0) return;
          contextValue.seenErrorReasons?.(errors.map((e) => e.extensions?.reason).filter((r): r is string => typeof r === "string"));
          const statuses = errors.map(statusOf);
          if (statuses.includes(503)) {
            response.http.status = 503;
            response.http.headers.set("retry-after", String(RETRY_AFTER_SECONDS));
          } else if (data === undefined) {
            // A request error: the client's (4xx) unless something unexpected happened.
            response.http.status = statuses.includes(500) ? 500 : Math.max(...statuses.filter((s) => s < 500), 400);
          }
        },
      };
    },
  };
}
