// The environment, parsed and checked once at start. Every variable is documented in the README.
import path from "node:path";
import { z } from "zod";

const boolean = z
  .enum(["true", "false", "1", "0"])
  .transform((v) => v === "true" || v === "1");

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  PAYGATE_DATA_DIR: z.string().min(1).default("./.data"),
  PAYGATE_DB_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
  /** 32 bytes, base64 or hex: the key that encrypts webhook secrets at rest. */
  PAYGATE_ENCRYPTION_KEY: z.string().optional(),
  PAYGATE_LOG_REQUESTS: boolean.default(false),
});

export interface Config {
  port: number;
  host: string;
  database: { kind: "postgres"; url: string; poolMax: number } | { kind: "pglite"; dataDir: string };
  dataDir: string;
  encryptionKey: string | undefined;
  logRequests: boolean;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(emptyToUndefined(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}\nFix these environment variables (see README, "Configuration").`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.PAYGATE_DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    database: e.DATABASE_URL
      ? { kind: "postgres", url: e.DATABASE_URL, poolMax: e.PAYGATE_DB_POOL_MAX }
      : { kind: "pglite", dataDir: path.join(dataDir, "pglite") },
    dataDir,
    encryptionKey: e.PAYGATE_ENCRYPTION_KEY,
    logRequests: e.PAYGATE_LOG_REQUESTS,
  };
}

/** An empty variable (`PORT=`) means unset, as most shells and .env loaders intend. */
function emptyToUndefined(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) out[k] = v === "" ? undefined : v;
  return out;
}
