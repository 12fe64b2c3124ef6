// What every adapter's configuration schema reads the environment with (flags, http(s) URLs), and the error a
// configuration it refuses throws.
import { z } from "zod";

export const boolean = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

export const httpUrl = z
  .string()
  .regex(/^https?:\/\/[^\s]+$/, "must be an http:// or https:// URL")
  .refine((v) => URL.canParse(v), "must be an http:// or https:// URL");

/** An environment the service refuses to start with: the message names each variable and what is wrong. */
export class ConfigError extends Error {}
