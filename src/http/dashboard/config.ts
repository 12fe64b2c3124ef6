// The dashboard's configuration (PAYGATE_DASHBOARD_…): second factors and sudo mode; src/config.ts composes it.
import { z } from "zod";
import { boolean } from "../../env.ts";

export const DashboardEnvSchema = z.object({
  /** Owners and developers must set up a second factor before anything else (docs/security.md). */
  PAYGATE_DASHBOARD_REQUIRE_2FA: boolean
    .default(false)
    .describe(
      "Require a second factor (an authenticator app or a security key) of dashboard owners and developers: until they set one up they can sign in but do nothing else (403 `second_factor_enrolment_required`; the dashboard leads them to its Security page). Viewers are not asked. See [The dashboard](dashboard.md). Default: `false`.",
    ),
  /** Sudo mode: sensitive dashboard changes need the password proved within this many minutes. */
  PAYGATE_DASHBOARD_REAUTHENTICATION_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1440)
    .default(10)
    .describe(
      "Sudo mode: changing a wallet, a webhook URL or secret, an API key, users or a second factor, or making a refund, asks for the password (and code) again when the session last proved them longer ago than this (1–1440). Default: `10` minutes.",
    ),
});
