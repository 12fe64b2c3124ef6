// The OpenAPI description of the settlement routes (issue 40; routes.ts beside it), assembled into
// the document by src/http/openapi.ts.
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errors } from "../../../core/errors.ts";
import { ConsolidationListParams } from "../../../core/settlement/consolidations.ts";
import { ANY, errorResponses, pagedList, json, KEY_ROLE, limited, SECRET_ONLY, secretKey, WITH_BODY, WITH_PATH } from "../openapi-shared.ts";
import { ConsolidationListResponse, ConsolidationRequest, ConsolidationResponse } from "./schemas.ts";

const consolidationId = z.object({
  consolidation_id: z.string().meta({ param: { name: "consolidation_id", in: "path" }, description: "The consolidation's `id` (`co_…`)." }),
});

const consolidationPage = pagedList(ConsolidationListParams, "consolidation");

export function registerSettlementPaths(registry: OpenAPIRegistry): void {
  const notFound = { error: errors.consolidationNotFound("…"), when: "an unknown id, another merchant's or the other mode's consolidation" };

  registry.registerPath({
    method: "post",
    path: "/v1/settlements/consolidations",
    operationId: "createConsolidation",
    summary: "Consolidate settled BTC or LTC payments",
    description:
      "Not in the spec (issue 40; docs/settlement.md): an unsigned PSBT spending the outputs of the merchant's settled payments (SUCCESSFUL, past their finality depth, unrefunded, in no other consolidation, unspent on the node) to `destination` at `fee_rate`, each input with its key origin so the merchant's wallet signs it. paygate sees it mined by its id (`tx_hash`).",
    security: secretKey,
    request: { body: json(ConsolidationRequest, "What to consolidate, where to, at what fee rate.") },
    responses: {
      201: limited(ConsolidationResponse, "The consolidation, open, with its PSBT."),
      ...errorResponses([
        {
          error: errors.consolidationValidation([]),
          when: "missing or invalid fields (a coin other than BTC/LTC, an address of another network or mode, a fee rate out of bounds); `errors` names each",
        },
        SECRET_ONLY,
        KEY_ROLE,
        { error: errors.nothingToConsolidate("LTC on litecoin in test mode"), when: "no settled output is left to spend" },
        { error: errors.consolidationBelowDust("0.00001 LTC", "0.00002 LTC", "0.00000294 LTC"), when: "the fee would leave the destination dust" },
        { error: errors.consolidationOutputsTaken(), when: "another consolidation took some outputs meanwhile" },
        {
          error: errors.consolidationNodeUnavailable("The LTC test node (PAYGATE_LTC_TEST_NODE_URL)", "connection refused"),
          when: "the own node cannot say which outputs are unspent",
        },
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/settlements/consolidations",
    operationId: "listConsolidations",
    summary: "List consolidations",
    description: "The secret key's merchant's consolidations of its mode, newest first, paged as `/v1/transactions`.",
    security: secretKey,
    request: { query: consolidationPage.query },
    responses: {
      200: limited(ConsolidationListResponse, "A page of consolidations."),
      ...errorResponses([...consolidationPage.refusals, SECRET_ONLY, ...ANY]),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/settlements/consolidations/{consolidation_id}",
    operationId: "retrieveConsolidation",
    summary: "Retrieve a consolidation",
    description: "Its state: open (PSBT given), seen (its transaction is on the node), confirmed, canceled.",
    security: secretKey,
    request: { params: consolidationId },
    responses: { 200: limited(ConsolidationResponse, "The consolidation."), ...errorResponses([SECRET_ONLY, notFound, ...WITH_PATH, ...ANY]) },
  });

  registry.registerPath({
    method: "post",
    path: "/v1/settlements/consolidations/{consolidation_id}/cancel",
    operationId: "cancelConsolidation",
    summary: "Cancel a consolidation",
    description: "Only while open (not seen on the chain): its outputs are offered again.",
    security: secretKey,
    request: { params: consolidationId },
    responses: {
      200: limited(ConsolidationResponse, "The canceled consolidation."),
      ...errorResponses([
        SECRET_ONLY,
        KEY_ROLE,
        notFound,
        { error: errors.consolidationNotOpen("seen"), when: "the consolidation is no longer open" },
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });
}
