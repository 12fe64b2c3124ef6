// Issue 46: one Ctrl-C is one clean stop. A terminal signals the whole process group, and npm and tsx
// pass their own signal on, so the service heard SIGINT two or three times within about 100 ms and
// logged "SIGINT again: exiting now" (exit 1) where one clean stop was meant. A signal that soon
// after the first is the same one relayed; the stop goes on to its "stopped in" line and exit 0.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpsDatabase, killChildren, logLines, startService, waitReady, type OpsDatabase } from "./support.ts";

let db: OpsDatabase;
beforeAll(async () => {
  db = await createOpsDatabase();
});
afterAll(async () => {
  killChildren();
  await db?.close();
});

describe("a signal relayed to the service twice", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`${signal} twice within 60 ms stops once, cleanly, with its "stopped in" line and exit 0`, async () => {
      const service = await startService(["--import", "tsx", "src/main.ts"], { env: db.env });
      await waitReady(service.baseUrl);
      service.child.kill(signal);
      await new Promise((resolve) => setTimeout(resolve, 60));
      service.child.kill(signal);
      const exit = await Promise.race([service.exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), 12_000))]);
      const messages = logLines(service.output()).map((line) => line.msg ?? "");
      expect(exit, service.output()).toEqual({ code: 0, signal: null });
      expect(
        messages.some((m) => m.startsWith("stopped in")),
        service.output(),
      ).toBe(true);
      expect(
        messages.filter((m) => m.includes("again")),
        service.output(),
      ).toEqual([]);
    });
  }
});
