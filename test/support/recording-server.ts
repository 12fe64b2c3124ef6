// A local HTTP server that records each request (after reading its body) and hands it to the test's
// handler: the far side of every outbound-HTTP test (webhook deliveries, the shared client).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

export interface RecordedRequest {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface RecordingServer {
  /** `http://127.0.0.1:<port><path>`. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** TCP connections accepted so far. */
  connections: number;
  /** Stops listening now (a test of a refused connection); otherwise it closes after the test. */
  close(): Promise<void>;
}

/**
 * `serve(handler, path)` starts one on 127.0.0.1 on a free port; every server started in a test is
 * closed after it (connections included). Call at the top of a test file.
 */
export function useRecordingServers(): (handle: (res: ServerResponse, req: RecordedRequest) => void, path?: string) => Promise<RecordingServer> {
  const servers: Array<ReturnType<typeof createServer>> = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  return async (handle, path = "/") => {
    const state: RecordingServer = {
      url: "",
      port: 0,
      requests: [],
      connections: 0,
      close: async () => {
        servers.splice(servers.indexOf(server), 1);
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
    };
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const recorded = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
        state.requests.push(recorded);
        handle(res, recorded);
      });
    });
    server.on("connection", () => state.connections++);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    state.port = (server.address() as AddressInfo).port;
    state.url = `http://127.0.0.1:${state.port}${path}`;
    return state;
  };
}
