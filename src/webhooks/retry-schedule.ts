// The retry schedule is a rule of the core's: src/core/events/deliveries.ts.
export { JITTER, nextAttemptAt } from "../core/events/deliveries.ts";
