// Mutations per request. GraphQL lets one request carry several root mutation fields (aliases,
// fragments); each is a write as costly as a REST call, yet the rate limiter counted the request
// once: 10 aliased initializeTransaction made 10 transactions for one count. So each root mutation
// field counts against the caller's bucket (the first one is the request the limiter already
// counted), and a request with more than MAX_MUTATIONS_PER_REQUEST is refused before anything runs.
// A mutation that moves money or hands out a one-time secret must be alone in its request (issue
// 41): a later field's failure answers `data: null`, and its one-time reply would be lost.
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
 * Mutations that move money or hand out a one-time secret, so must be alone in their request.
 * Root mutation fields are non-null and run one after another: when a later one fails, `data` is
 * null, so what the earlier ones did is unseen (5 aliased createRefund made 2 refunds and answered
 * `data: null`, losing both claim links, which only the creation reply shows). A request carrying
 * one of these beside any other mutation is refused before anything runs; one alone is safe.
 * - createRefund: moves money and its reply holds the refund's one-time claim link.
 * - cancelRefund, markRefundPaid: stop a refund or record one the merchant paid.
 * - initiatePayment: locks the rate, so the amount the customer pays, and hands out the address.
 * - createWebhookEndpoint, rotateWebhookEndpointSecret: the signing secret is in this reply only.
 * Not here: initializeTransaction (no money moves, readable later), updating, deleting and
 * redelivering webhook endpoints (no money, no secret; each can be retried and read back).
 */
export const SENSITIVE_MUTATIONS: ReadonlySet<string> = new Set([
  "createRefund",
  "cancelRefund",
  "markRefundPaid",
  "initiatePayment",
  "createWebhookEndpoint",
  "rotateWebhookEndpointSecret",
]);

/**
 * The root fields a mutation runs: each distinct response key (alias or name) with the field it
 * names, through fragment spreads and inline fragments, without `__typename`. A @skip is not read:
 * a skipped field counts, which only errs towards refusing.
 */
export function rootMutationSelections(operation: OperationDefinitionNode, document: DocumentNode): Map<string, string> {
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const fields = new Map<string, string>();
  const seen = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (!name.startsWith("__")) fields.set(selection.alias?.value ?? name, name);
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
  return fields;
}

/** "createRefund 5 times", "createRefund and cancelRefund": each field name once, in order, with its count. */
function describeFields(names: Iterable<string>): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  const parts = [...counts].map(([name, n]) => (n > 1 ? `${name} ${n} times` : name));
  return parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : (parts[0] ?? "");
}

/**
 * Refuses (400) a request where a sensitive mutation has company or over the cap, and counts each
 * mutation field after the first (429 when over the bucket's limit).
 */
export function mutationLimits(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, contextValue }) {
          if (operation?.operation !== "mutation") return;
          const selections = rootMutationSelections(operation, document);
          const fields = selections.size;
          if (fields > MAX_MUTATIONS_PER_REQUEST) {
            throw toGraphQLError(
              errors.badRequest(
                `Too many mutations in one request: ${fields} root mutation fields, at most ${MAX_MUTATIONS_PER_REQUEST}; ` +
                  "send the others in requests of their own (each counts against the rate limit)",
                "too_many_mutations",
              ),
            );
          }
          // After the cap, so a batch over it hears the cap's message whatever it holds.
          const names = [...selections.values()];
          if (fields > 1 && names.some((name) => SENSITIVE_MUTATIONS.has(name))) {
            throw toGraphQLError(errors.sensitiveMutationsBatched(describeFields(names)));
          }
          if (fields < 2) return;
          const refusal = await contextValue.countMoreRequests?.(fields - 1);
          if (refusal) throw toGraphQLError(refusal);
        },
      };
    },
  };
}
