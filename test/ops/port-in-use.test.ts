// The service started on a port another process holds (or an address this machine lacks) stops with
// exit code 1 and a line that says what to change, instead of crashing on the listen error.
import { once } from "node:events";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpsDatabase, runNode, type OpsDatabase } from "./support.ts";

let db: OpsDatabase;
let holder: Server;
let port = 0;

beforeAll(async () => {
  db = await createOpsDatabase();
  holder = createServer();
  holder.listen(0, "127.0.0.1");
  await once(holder, "listening");
  const address = holder.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  port = address.port;
});
afterAll(async () => {
  holder.close();
  await db.close();
});

describe("starting on an address it cannot have", () => {
  it("exits 1 naming the taken port and what to set", async () => {
    const run = await runNode(["--import", "tsx", "src/main.ts"], { env: { ...db.env, PORT: String(port) }, timeoutMs: 60_000 });
    const output = run.stdout + run.stderr;
    expect(run.code, output).toBe(1);
    expect(output).toContain(
      `paygate cannot listen on 127.0.0.1:${port}: the port is already in use (EADDRINUSE). Stop what listens there, or set PORT to a free port.`,
    );
    expect(output).not.toMatch(/TypeError|at .*listening\.ts/);
  }, 90_000);

  it("exits 1 naming an address this machine does not have", async () => {
    const run = await runNode(["--import", "tsx", "src/main.ts"], { env: { ...db.env, HOST: "192.0.2.1", PORT: "3999" }, timeoutMs: 60_000 });
    const output = run.stdout + run.stderr;
    expect(run.code, output).toBe(1);
    expect(output).toContain("paygate cannot listen on 192.0.2.1:3999: no interface of this machine has that address (EADDRNOTAVAIL)");
  }, 90_000);
});
