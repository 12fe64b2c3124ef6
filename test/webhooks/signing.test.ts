// Our signatures must verify with the official Standard Webhooks library, since that (or a port of
// it) is what merchants will use.
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newWebhookSecret } from "../../src/core/secrets.ts";
import { signatureHeaders } from "../../src/webhooks/signing.ts";

const body = JSON.stringify({ type: "payment.confirmed", data: { reference: "bq_abc", amount: "12.50", note: "café ✓" } });

describe("signatureHeaders", () => {
  it("reproduces the specification's published test vector", () => {
    const headers = signatureHeaders(
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      "msg_p5jXN8AQM9LWM0D4loKWxJek",
      new Date(1614265330 * 1000),
      '{"test": 2432232314}',
    );
    expect(headers).toEqual({
      "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
      "webhook-timestamp": "1614265330",
      "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    });
  });

  it("matches the library's own sign() for a fixed message with non-ASCII text", () => {
    const secret = "whsec_C2FtcGxlLXNlY3JldC1mb3ItcGF5Z2F0ZQ==";
    const at = new Date("2025-03-01T12:34:56.789Z");
    // Computed once with `new Webhook(secret).sign(id, at, body)` from standardwebhooks 1.1.1.
    const expected = "v1,MNIC9vS1Xk9Qjru2gaBVpywVR6YgbCGMJ52YWyE2TXA=";
    expect(new Webhook(secret).sign("msg_fixed_1", at, body)).toBe(expected);
    const headers = signatureHeaders(secret, "msg_fixed_1", at, body);
    expect(headers["webhook-signature"]).toBe(expected);
    // Whole seconds, with the milliseconds dropped rather than rounded.
    expect(headers["webhook-timestamp"]).toBe("1740832496");
  });

  it("is accepted by the official verifier", () => {
    const secret = newWebhookSecret();
    const headers = signatureHeaders(secret, "msg_1", new Date(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("is rejected for a tampered body, a wrong secret, or another message id", () => {
    const secret = newWebhookSecret();
    const headers = signatureHeaders(secret, "msg_1", new Date(), body);
    expect(() => new Webhook(secret).verify(body.replace("12.50", "99.50"), headers)).toThrow(/No matching signature/);
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow(/No matching signature/);
    expect(() => new Webhook(secret).verify(body, { ...headers, "webhook-id": "msg_2" })).toThrow(/No matching signature/);
  });

  it("signs with every secret given (a rotation's overlap): each verifies alone, a third does not", () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const headers = signatureHeaders([current, previous], "msg_1", new Date(), body);
    const signatures = headers["webhook-signature"].split(" ");
    expect(signatures).toHaveLength(2);
    expect(signatures[0]).toBe(signatureHeaders(current, "msg_1", new Date(Number(headers["webhook-timestamp"]) * 1000), body)["webhook-signature"]);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow(/No matching signature/);
    expect(() => signatureHeaders([], "msg_1", new Date(), body)).toThrow(/at least one signing secret/);
    expect(() => signatureHeaders([current, "whsec_not*base64!"], "msg_1", new Date(), body)).toThrow(/whsec_<base64 key>/);
  });

  it("refuses secrets that are not whsec_<base64>", () => {
    const at = new Date();
    for (const secret of ["", "whsec_", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not*base64!", "sec_test_abc"]) {
      expect(() => signatureHeaders(secret, "msg_1", at, body), secret).toThrow(/whsec_<base64 key>/);
    }
    expect(() => signatureHeaders(newWebhookSecret(), "msg_1", new Date(Number.NaN), body)).toThrow(/valid date/);
  });
});
