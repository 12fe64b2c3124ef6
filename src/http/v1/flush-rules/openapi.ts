// The OpenAPI description of the flush rules (issue 40; routes.ts beside it), assembled into the
// document by src/http/openapi.ts.
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errors } from "../../../core/errors.ts";
import { ANY, errorResponses, json, KEY_ROLE, limited, SECRET_ONLY, secretKey, WITH_BODY, WITH_PATH } from "../openapi-shared.ts";
import { FlushRuleListResponse, FlushRuleRemovedResponse, FlushRuleRequest, FlushRuleResponse } from "./schemas.ts";
import { EVM_NETWORK_SLUGS } from "../../../core/networks.ts";

const networkParam = z.object({
  network: z.string().meta({
    param: { name: "network", in: "path" },
    description: `A network that takes forwarders: ${EVM_NETWORK_SLUGS.map((n) => `\`${n}\``).join(", ")}.`,
  }),
});
const badNetwork = { error: errors.flushRuleValidation([]), when: "a network that takes no forwarders; `errors` names it" };

export function registerFlushRulePaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "get",
    path: "/v1/settlements/flush-rules",
    operationId: "listFlushRules",
    summary: "List flush rules",
    description:
      "Not in the spec (issue 40; docs/settlement.md): when the flush job flushes the key's mode's settled forwarders, per network. A network without a rule uses the operator's thresholds.",
    security: secretKey,
    responses: { 200: limited(FlushRuleListResponse, "The rules, by network."), ...errorResponses([SECRET_ONLY, ...ANY]) },
  });

  registry.registerPath({
    method: "put",
    path: "/v1/settlements/flush-rules/{network}",
    operationId: "setFlushRule",
    summary: "Set when settled forwarders are flushed",
    description:
      "The flush job flushes the network's settled forwarders (in the key's mode) as soon as any threshold is reached: `min_payments` waiting, their orders adding up to `min_value`, or the oldest waiting `max_age_hours`. A threshold left out is the operator's default. Flushes on demand ignore rules.",
    security: secretKey,
    request: { params: networkParam, body: json(FlushRuleRequest, "The rule.") },
    responses: {
      200: limited(FlushRuleResponse, "The rule."),
      ...errorResponses([
        {
          error: errors.flushRuleValidation([]),
          when: "no threshold, one out of bounds, a value in another currency, or a network without forwarders; `errors` names each",
        },
        SECRET_ONLY,
        KEY_ROLE,
        ...WITH_PATH,
        ...WITH_BODY,
        ...ANY,
      ]),
    },
  });

  registry.registerPath({
    method: "delete",
    path: "/v1/settlements/flush-rules/{network}",
    operationId: "removeFlushRule",
    summary: "Remove a flush rule",
    description: "The operator's thresholds apply to the network again.",
    security: secretKey,
    request: { params: networkParam },
    responses: {
      200: limited(FlushRuleRemovedResponse, "Removed."),
      ...errorResponses([
        badNetwork,
        SECRET_ONLY,
        KEY_ROLE,
        { error: errors.flushRuleNotFound("ethereum"), when: "no rule for that network in this mode" },
        ...WITH_PATH,
        ...ANY,
      ]),
    },
  });
}
