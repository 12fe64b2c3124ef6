// POST /graphql: Apollo Server on the Express app, schema-first from schema.graphql.
import { readFileSync } from "node:fs";
import { ApolloServer, type ApolloServerPlugin } from "@apollo/server";
import { ApolloServerPluginLandingPageDisabled } from "@apollo/server/plugin/disabled";
import { ApolloServerPluginLandingPageLocalDefault } from "@apollo/server/plugin/landingPage/default";
import { expressMiddleware } from "@as-integrations/express5";
import { ApolloArmor } from "@escape.tech/graphql-armor";
import { makeExecutableSchema } from "@graphql-tools/schema";
import express, { type RequestHandler } from "express";
import type { PaymentGateway } from "../core/gateway.ts";
import { bearerToken } from "../core/merchants/credentials.ts";
import { idempotencyKeyHeader } from "../core/idempotency.ts";
import type { GraphQLContext } from "./context.ts";
import { formatError } from "./errors.ts";
import { resolvers } from "./resolvers.ts";

export const SCHEMA_FILE = new URL("../../schema.graphql", import.meta.url);

export interface GraphQLOptions {
  /** Schema introspection; off by default, as in production. */
  introspection: boolean;
  /** Apollo's landing page on GET /graphql; off by default. */
  landingPage: boolean;
  /** Limits against abusive queries (defaults in README). */
  maxDepth?: number;
  maxCost?: number;
}

export interface MountedGraphQL {
  handler: RequestHandler[];
  stop(): Promise<void>;
}

export async function createGraphQL(
  gateway: PaymentGateway,
  options: GraphQLOptions,
  log: (line: string) => void,
): Promise<MountedGraphQL> {
  const schema = makeExecutableSchema<GraphQLContext>({ typeDefs: readFileSync(SCHEMA_FILE, "utf8"), resolvers });
  const armor = new ApolloArmor({
    maxDepth: { n: options.maxDepth ?? 8 },
    costLimit: { maxCost: options.maxCost ?? 1000 },
    maxAliases: { n: 10 },
    maxDirectives: { n: 20 },
    maxTokens: { n: 2000 },
    // Suggestions would spell out the schema to a client that may not introspect it.
    blockFieldSuggestion: { enabled: !options.introspection },
  });
  const protection = armor.protect();
  const server = new ApolloServer<GraphQLContext>({
    schema,
    ...protection,
    introspection: options.introspection,
    includeStacktraceInErrorResponses: false,
    formatError: formatError(log),
    // graphql-armor's and the plugin subpaths' typings name Apollo's CommonJS build; the objects are the same.
    plugins: [
      ...protection.plugins,
      options.landingPage ? ApolloServerPluginLandingPageLocalDefault({ embed: true }) : ApolloServerPluginLandingPageDisabled(),
    ] as unknown as ApolloServerPlugin<GraphQLContext>[],
  });
  await server.start();
  const middleware = expressMiddleware(server, {
    context: async ({ req }) => ({
      gateway,
      bearerToken: bearerToken(req.headers.authorization),
      idempotencyKey: idempotencyKeyHeader(req.headers["idempotency-key"]),
    }),
  });
  return { handler: [express.json({ limit: "64kb" }), middleware], stop: () => server.stop() };
}
