// Prometheus metrics (prom-client): what the app, the runtime and the tests wire in.
export { meteredGateway } from "./gateway.ts";
export { httpMetrics, metricsEndpoint } from "./http.ts";
export { PaygateMetrics, type MetricsOptions } from "./metrics.ts";
