// The retry schedule is a rule of the core's: src/core/webhooks/deliveries.ts.
export { JITTER, nextAttemptAt } from "../core/webhooks/deliveries.ts";
