// Mutations per request. GraphQL lets one request carry several root mutation fields (aliases,
// fragments); each is a write as costly as a REST call, yet the rate limiter counted the request
// once: 10 aliased initializeTransaction made 10 transactions for one count. So each root mutation
// field counts against the caller's bucket (the first one is the request the limiter already
// counted), and a request with more than MAX_MUTATIONS_PER_REQUEST is refused before anything runs.
import type { ApolloServerPlugin } from "@apollo/server";
import { Kind, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from "graphql";
import { errors } from "../core/errors.ts";
import type { GraphQLContext } from "./context.ts";
import { toGraphQLError } from "./errors.ts";

/**
 * At most this many root mutation fields in one request. A checkout makes one write at a time and a
 * server has no need to batch more than a few (initializeTransaction and initiatePayment each need
 * an answer first); past that a batch only multiplies what one admitted request makes the service do
 * (serially, holding the connection) before the limiter sees the caller again. The Idempotency-Key
 * header names one write, so a client that retries should send one mutation per request.
 */
export const MAX_MUTATIONS_PER_REQUEST = 5;

/**
 * The root fields a mutation runs: its distinct response keys (aliases or names), through fragment
 * spreads and inline fragments, without `__typename`. A @skip is not read: a skipped field counts,
 * which only errs towards refusing.
 */
export function rootMutationFields(operation: OperationDefinitionNode, document: DocumentNode): number {
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const keys = new Set<string>();
  const seen = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!selection.name.value.startsWith("__")) keys.add(selection.alias?.value ?? selection.name.value);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet);
      } else if (!seen.has(selection.name.value)) {
        // Validation has refused unknown and cyclic fragments; each is read once all the same.
        seen.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) collect(fragment.selectionSet);
      }
    }
  };
  collect(operation.selectionSet);
  return keys.size;
}

/** Refuses a request over the cap (400) and counts each mutation field after the first (429 when over the bucket's limit). */
export function mutationLimits(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, contextValue }) {
          if (operation?.operation !== "mutation") return;
          const fields = rootMutationFields(operation, document);
          if (fields > MAX_MUTATIONS_PER_REQUEST) {
            throw toGraphQLError(
              errors.badRequest(
                `Too many mutations in one request: ${fields} root mutation fields, at most ${MAX_MUTATIONS_PER_REQUEST}; ` +
                  "send the others in requests of their own (each counts against the rate limit)",
                "too_many_mutations",
              ),
            );
          }
          if (fields < 2) return;
          const refusal = await contextValue.countMoreRequests?.(fields - 1);
          if (refusal) throw toGraphQLError(refusal);
        },
      };
    },
  };
}
