// SIGTERM with subscriptions open, on the real service (`node --import tsx src/main.ts`): a
// WebSocket and an event stream never end by themselves, so stopping closes them (WebSocket 1001,
// Going Away; the stream ends) and the process still exits 0 promptly.
import { afterAll, beforeAll, expect, it } from "vitest";
import { subscribeSse, subscribeWs } from "../support/subscriptions.ts";
import { TransactionUpdatedDocument } from "../graphql/generated/operations.ts";
import { createMerchantKey, createOpsDatabase, killChildren, startService, waitReady, type OpsDatabase, type Service } from "./support.ts";
import { initializeBody } from "../support/builders.ts";

let db: OpsDatabase;
let publicKey = "";
let service: Service;

beforeAll(async () => {
  db = await createOpsDatabase();
  publicKey = await createMerchantKey("Shutdown Test", { env: db.env });
  service = await startService(["--import", "tsx", "src/main.ts"], { env: db.env });
  await waitReady(service.baseUrl);
});

afterAll(async () => {
  killChildren();
  await db?.close();
});

it("closes open WebSockets (1001) and event streams on SIGTERM and exits 0", async () => {
  const created = await fetch(`${service.baseUrl}/v1/transaction`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${publicKey}` },
    body: JSON.stringify(initializeBody()),
  });
  expect(created.status).toBe(201);
  const { id } = ((await created.json()) as { data: { id: string } }).data;
  const ws = subscribeWs(service.baseUrl, TransactionUpdatedDocument, { id }, { authorization: `Bearer ${publicKey}` });
  const sse = subscribeSse(service.baseUrl, TransactionUpdatedDocument, { id }, { authorization: `Bearer ${publicKey}` });
  expect((await ws.data(10_000)).transactionUpdated.status).toBe("INITIATED");
  expect((await sse.data(10_000)).transactionUpdated.status).toBe("INITIATED");

  const signalled = Date.now();
  service.child.kill("SIGTERM");
  expect((await ws.closeEvent).code).toBe(1001);
  const exit = await service.exited;
  expect(exit.code, service.output().slice(-3_000)).toBe(0);
  expect(Date.now() - signalled).toBeLessThan(5_000);
  expect(service.output()).toContain("subscriptions closed (WebSockets and event streams)");
  // The event stream ended with the service (the client saw its end or a dropped connection).
  const deadline = Date.now() + 2_000;
  while (!sse.ended && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(sse.ended).toBe(true);
  await ws.close();
  await sse.close();
});
