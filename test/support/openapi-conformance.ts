// Every response the test suite receives from a documented route is checked against the OpenAPI
// document (src/http/openapi.ts): its status must be documented and its JSON body must match the
// schema. The test gateway records what does not, and fails its file at close.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { NextFunction, Request, Response } from "express";
import { openApiDocument } from "../../src/http/openapi.ts";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

export class OpenApiConformance {
  readonly violations: string[] = [];
  private readonly operations: Operation[] = [];
  private readonly validators = new Map<string, ValidateFunction | null>();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly components: unknown;

  constructor(document = openApiDocument()) {
    addFormats(this.ajv);
    this.components = document.components;
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of Object.entries(item as Record<string, { responses?: Operation["responses"] }>)) {
        if (!operation || typeof operation !== "object" || !operation.responses) continue;
        const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}$`);
        this.operations.push({ method: method.toUpperCase(), template, pattern, responses: operation.responses });
      }
    }
  }

  /** Problems with one response, or [] when it conforms (or its route is not documented). */
  check(method: string, path: string, status: number, body: unknown): string[] {
    const operation = this.operations.find((o) => o.method === method && o.pattern.test(path));
    if (!operation) return [];
    const where = `${method} ${operation.template} → ${status}`;
    const response = operation.responses[String(status)] ?? operation.responses.default;
    if (!response) return [`${where}: status not documented`];
    const schema = response.content?.["application/json"]?.schema;
    if (schema === undefined) return [];
    const key = `${method} ${operation.template} ${status}`;
    let validate = this.validators.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile({ ...(schema as object), components: this.components });
      this.validators.set(key, validate);
    }
    if (!validate || validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${where}: ${e.instancePath || "(body)"} ${e.message ?? "is invalid"}`);
  }

  /** Express middleware that checks each JSON response as it is sent. */
  middleware() {
    return (req: Request, res: Response, next: NextFunction) => {
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        this.violations.push(...this.check(req.method, req.path, res.statusCode, JSON.parse(JSON.stringify(body ?? null))));
        return json(body);
      };
      next();
    };
  }
}
