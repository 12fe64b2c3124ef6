// Issue 41: each mode signs its first endpoint's deliveries with a secret of its own. A test secret
// key once recreated the test mode's first endpoint and was shown the merchant's whsec_ (which also
// signed live deliveries), and its rotate_secret moved live mode's secret. Whatever a test credential
// does, live deliveries stay verifiable with the secret live mode was given, and with nothing else.
import type { ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initializeBody } from "../support/builders.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { useRecordingServers, type RecordingServer } from "../support/recording-server.ts";

let t: TestGateway;
const serve = useRecordingServers();
const ok = (res: ServerResponse) => res.writeHead(200).end("ok");

beforeAll(async () => {
  // Live receivers on this machine's loopback, as a test can run them.
  t = await startTestGateway({ privateWebhookTargets: { live: true } });
});
afterAll(() => t.close());

async function call(method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(t.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Whether every request the receiver got verifies with `secret`. */
function verifiesWith(server: RecordingServer, secret: string): boolean {
  const webhook = new Webhook(secret);
  return server.requests.every((r) => {
    try {
      webhook.verify(r.body, r.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  });
}

/** A merchant with both modes' first endpoints on recording receivers, live payments allowed. */
async function merchantWithBothModes(name: string) {
  const slug = name.toLowerCase().replaceAll(" ", "-");
  const live = await serve(ok, `/${slug}/live`);
  const test = await serve(ok, `/${slug}/test`);
  const keys = await t.merchant({ name, kyb: "VERIFIED", testWebhookUrl: test.url });
  // Live URLs are https on public hosts: this one is set behind the check's back (the dispatcher may reach loopback here).
  await t.db.merchant.update({ where: { id: keys.id }, data: { liveWebhookUrl: live.url } });
  return { keys, live, test };
}

/** One transaction initialized in each mode, its event delivered. */
async function eventInEachMode(keys: { livePublicKey: string; testPublicKey: string }) {
  for (const key of [keys.livePublicKey, keys.testPublicKey]) {
    expect((await t.post("/v1/transaction", initializeBody({ amount: "12" }), { authorization: `Bearer ${key}` })).status).toBe(201);
  }
  await t.dispatcher().drain();
}

const primaryOf = async (key: string) =>
  (await call("GET", "/v1/webhook_endpoints", key)).body.data.find((e: { primary: boolean }) => e.primary) as {
    id: string;
    secret_rotated_at: string | null;
    previous_secret_expires_at: string | null;
  };

describe("a test credential never reads or rotates the secret that signs live deliveries", () => {
  it("recreating test mode's first endpoint shows a new secret; live deliveries verify only with live mode's", async () => {
    const { keys, live } = await merchantWithBothModes("Recreated Ltd");
    const first = await primaryOf(keys.testSecretKey);
    expect((await call("DELETE", `/v1/webhook_endpoints/${first.id}`, keys.testSecretKey)).status).toBe(200);
    const again = await serve(ok, "/recreated/test-again");
    const made = await call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: again.url, enabled_events: ["*"] });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ primary: true, secret: expect.stringMatching(/^whsec_/) });
    const testSecret: string = made.body.data.secret;
    expect(testSecret).not.toBe(keys.webhookSecret);

    await eventInEachMode(keys);
    expect(live.requests).toHaveLength(1);
    expect(verifiesWith(live, keys.webhookSecret)).toBe(true);
    // A live delivery forged with what the test key was shown does not verify.
    expect(verifiesWith(live, testSecret)).toBe(false);
    expect(again.requests).toHaveLength(1);
    expect(verifiesWith(again, testSecret)).toBe(true);
    expect(verifiesWith(again, keys.webhookSecret)).toBe(false);
  });

  it("rotating test mode's first endpoint twice leaves live mode's secret and its rotation date as they were", async () => {
    const { keys, live, test } = await merchantWithBothModes("Rotated Twice Ltd");
    const liveBefore = await primaryOf(keys.liveSecretKey);
    const testFirst = await primaryOf(keys.testSecretKey);
    const rotations: string[] = [];
    for (let i = 0; i < 2; i++) {
      const rotated = await call("POST", `/v1/webhook_endpoints/${testFirst.id}/rotate_secret`, keys.testSecretKey, {});
      expect(rotated.status).toBe(200);
      rotations.push(rotated.body.data.secret);
    }
    const liveAfter = await primaryOf(keys.liveSecretKey);
    expect(liveAfter).toMatchObject({ id: liveBefore.id, secret_rotated_at: null, previous_secret_expires_at: null });
    expect((await t.gateway.merchants.settings(t.gateway.access.operator(keys.id))).webhookSecret).toEqual({
      rotatedAt: null,
      previousSecretExpiresAt: null,
    });

    await eventInEachMode(keys);
    expect(verifiesWith(live, keys.webhookSecret)).toBe(true);
    for (const secret of rotations) expect(verifiesWith(live, secret)).toBe(false);
    // Test deliveries carry the newest secret and, for 24 hours, the one before it.
    expect(verifiesWith(test, rotations[1] as string)).toBe(true);
    expect(verifiesWith(test, rotations[0] as string)).toBe(true);
  });

  it("rotating live mode's first endpoint leaves test mode signing with what it had", async () => {
    const { keys, live, test } = await merchantWithBothModes("Live Rotation Ltd");
    const first = await primaryOf(keys.liveSecretKey);
    const rotated = await call("POST", `/v1/webhook_endpoints/${first.id}/rotate_secret`, keys.liveSecretKey, {});
    expect(rotated.status).toBe(200);
    const testFirst = await primaryOf(keys.testSecretKey);
    expect(testFirst.secret_rotated_at).toBeNull();

    await eventInEachMode(keys);
    expect(verifiesWith(live, rotated.body.data.secret)).toBe(true);
    expect(verifiesWith(test, keys.webhookSecret)).toBe(true);
    expect(verifiesWith(test, rotated.body.data.secret)).toBe(false);
  });

  it("the operator's rotation of the merchant's secret gives both modes the new one", async () => {
    const { keys, live, test } = await merchantWithBothModes("Operator Rotation Ltd");
    // Test mode has a secret of its own first: the merchant's rotation still reaches it.
    const testFirst = await primaryOf(keys.testSecretKey);
    expect((await call("POST", `/v1/webhook_endpoints/${testFirst.id}/rotate_secret`, keys.testSecretKey, {})).status).toBe(200);
    const rotated = await t.gateway.merchants.rotateWebhookSecret(t.gateway.access.operator(keys.id));

    await eventInEachMode(keys);
    expect(verifiesWith(live, rotated.webhookSecret)).toBe(true);
    expect(verifiesWith(test, rotated.webhookSecret)).toBe(true);
  });
});

describe("creating a mode's first endpoint, many at once", () => {
  it("makes exactly one first endpoint; every other creation is an endpoint of its own, each answer true to its row", async () => {
    const keys = await t.merchant({ name: "Racing Endpoints Ltd" });
    const receivers = await Promise.all(Array.from({ length: 10 }, (_, i) => serve(ok, `/race/${i}`)));
    const answers = await Promise.all(
      receivers.map((r) => call("POST", "/v1/webhook_endpoints", keys.testSecretKey, { url: r.url, enabled_events: ["*"] })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    const rows = (await call("GET", "/v1/webhook_endpoints", keys.testSecretKey)).body.data as { id: string; url: string; primary: boolean }[];
    expect(rows).toHaveLength(10);
    expect(rows.filter((r) => r.primary)).toHaveLength(1);
    for (const answer of answers) {
      expect(rows.find((r) => r.id === answer.body.data.id)).toMatchObject({ url: answer.body.data.url, primary: answer.body.data.primary });
    }
    const primary = rows.find((r) => r.primary);
    expect((await t.gateway.merchants.settings(t.gateway.access.operator(keys.id))).webhookUrls.test).toBe(primary?.url);
    expect(new Set(rows.map((r) => r.url)).size).toBe(10);
  });
});
