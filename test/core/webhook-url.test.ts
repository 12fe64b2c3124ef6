// Which webhook URLs an operator may set, per mode, and which resolved addresses count as public.
import { describe, expect, it } from "vitest";
import { PrivateAllowlist } from "../../src/core/private-targets.ts";
import { checkWebhookUrl, isPublicAddress, type WebhookMode } from "../../src/core/merchants/webhook-url.ts";

const strict = { allowPrivate: false };

describe("checkWebhookUrl", () => {
  const acceptedEverywhere = [
    ["https://hooks.example.com/paygate", "https://hooks.example.com/paygate"],
    ["https://Hooks.Example.COM:8443/a/b?x=1&y=2", "https://hooks.example.com:8443/a/b?x=1&y=2"],
    ["https://example.com", "https://example.com/"],
    ["https://8.8.8.8/hook", "https://8.8.8.8/hook"],
    ["https://[2606:4700:4700::1111]/hook", "https://[2606:4700:4700::1111]/hook"],
    ["https://bücher.example/hook", "https://xn--bcher-kva.example/hook"],
  ] as const;

  it.each(acceptedEverywhere)("accepts %s in both modes", (url, normalised) => {
    for (const mode of ["test", "live"] as WebhookMode[]) {
      expect(checkWebhookUrl(url, mode, strict), mode).toEqual({ ok: true, url: normalised });
    }
  });

  const privateInTest = [
    "http://127.0.0.1:4000/hook",
    "http://localhost:3000/webhooks",
    "http://[::1]:4000/hook",
    "http://192.168.1.20/hook",
    "https://10.0.0.5/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://devbox/hook",
    "http://api.internal/hook",
  ];

  it.each(privateInTest)("accepts %s in test mode only where the operator allows private hosts, never in live mode", (url) => {
    expect(checkWebhookUrl(url, "test", { allowPrivate: true })).toEqual({ ok: true, url: new URL(url).toString() });
    const refused = checkWebhookUrl(url, "test", strict);
    expect(refused).toMatchObject({ ok: false, privateHost: true });
    if (!refused.ok) expect(refused.reason).toMatch(/^test-mode webhook URLs must point at a public host: /);
    expect(checkWebhookUrl(url, "live", strict).ok).toBe(false);
  });

  it("accepts plain http on a public host in test mode only", () => {
    const url = "http://hooks.example.com/hook";
    expect(checkWebhookUrl(url, "test", strict)).toEqual({ ok: true, url });
    expect(checkWebhookUrl(url, "live", strict)).toEqual({ ok: false, reason: "live-mode webhook URLs must use https (got http:)" });
  });

  it("lets the operator's allowlist through in both modes, and nothing else private", () => {
    const allowlist = PrivateAllowlist.parse("hooks.internal, 10.20.0.0/16, 127.0.0.1, fd00::/8");
    if (!(allowlist instanceof PrivateAllowlist)) throw new Error(allowlist.problem);
    const options = { allowPrivate: false, allowlist };
    for (const mode of ["test", "live"] as WebhookMode[]) {
      for (const url of [
        "https://hooks.internal/h",
        "https://HOOKS.internal./h",
        "https://10.20.3.4/h",
        "https://127.0.0.1:8443/h",
        "https://[fd00::5]/h",
        "https://[::ffff:127.0.0.1]/h",
      ]) {
        expect(checkWebhookUrl(url, mode, options), `${mode} ${url}`).toEqual({ ok: true, url: new URL(url).toString() });
      }
      for (const url of ["https://other.internal/h", "https://10.21.0.1/h", "https://127.0.0.2/h", "https://localhost/h", "https://[::1]/h"]) {
        expect(checkWebhookUrl(url, mode, options), `${mode} ${url}`).toMatchObject({ ok: false, privateHost: true });
      }
    }
  });

  // [label, url, reason]: labels keep the 2 KB URLs out of the test names.
  const refusedEverywhere: Array<[string, string, RegExp]> = [
    ["not a url", "not a url", /not a valid absolute URL/],
    ["/relative/path", "/relative/path", /not a valid absolute URL/],
    ["ftp://example.com/hook", "ftp://example.com/hook", /must use http or https \(got ftp:\)/],
    ["javascript:alert(1)", "javascript:alert(1)", /must use http or https \(got javascript:\)/],
    ["https://user:pass@example.com/hook", "https://user:pass@example.com/hook", /username or password/],
    ["https://user@example.com/hook", "https://user@example.com/hook", /username or password/],
    ["https://example.com/hook#section", "https://example.com/hook#section", /fragment/],
    ["https://example.com/hook#", "https://example.com/hook#", /fragment/],
    ["a 2068-character URL", `https://example.com/${"a".repeat(2048)}`, /at most 2048 characters \(got 2068\)/],
    // Under the limit as typed, over it once the spaces are percent-encoded.
    ["a URL that grows past 2048 characters when normalised", `https://example.com/${" ".repeat(1000)}x`, /at most 2048 characters once normalised/],
  ];

  it.each(refusedEverywhere)("refuses %s in both modes", (_label, url, reason) => {
    for (const mode of ["test", "live"] as WebhookMode[]) {
      const result = checkWebhookUrl(url, mode, { allowPrivate: true });
      expect(result.ok, mode).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(reason);
    }
  });

  it("accepts a URL of exactly 2048 characters", () => {
    const url = `https://example.com/${"a".repeat(2048 - "https://example.com/".length)}`;
    expect(url).toHaveLength(2048);
    expect(checkWebhookUrl(url, "live", strict)).toEqual({ ok: true, url });
  });

  const refusedInLive: Array<[string, RegExp]> = [
    ["http://hooks.example.com/hook", /^live-mode webhook URLs must use https \(got http:\)$/],
    ["https://127.0.0.1/hook", /127\.0\.0\.1 is a private, loopback or reserved address/],
    ["https://127.1/hook", /127\.0\.0\.1 is a private/], // the URL parser's shorthand IPv4
    ["https://2130706433/hook", /127\.0\.0\.1 is a private/], // and its decimal form
    ["https://0x7f.0.0.1/hook", /127\.0\.0\.1 is a private/],
    ["https://10.1.2.3/hook", /10\.1\.2\.3 is a private/],
    ["https://172.16.0.1/hook", /172\.16\.0\.1 is a private/],
    ["https://192.168.1.1/hook", /192\.168\.1\.1 is a private/],
    ["https://169.254.169.254/latest/meta-data", /169\.254\.169\.254 is a private/],
    ["https://100.64.0.1/hook", /100\.64\.0\.1 is a private/],
    ["https://0.0.0.0/hook", /0\.0\.0\.0 is a private/],
    ["https://224.0.0.1/hook", /224\.0\.0\.1 is a private/],
    ["https://255.255.255.255/hook", /255\.255\.255\.255 is a private/],
    ["https://[::1]/hook", /::1 is a private/],
    ["https://[::]/hook", /:: is a private/],
    ["https://[fe80::1]/hook", /fe80::1 is a private/],
    ["https://[fc00::1]/hook", /fc00::1 is a private/],
    ["https://[fd12:3456::1]/hook", /fd12:3456::1 is a private/],
    ["https://[::ffff:127.0.0.1]/hook", /::ffff:7f00:1 is a private/],
    ["https://[::ffff:10.0.0.1]/hook", /::ffff:a00:1 is a private/],
    ["https://localhost/hook", /localhost is the local machine/],
    ["https://LOCALHOST./hook", /localhost is the local machine/],
    ["https://app.localhost/hook", /app\.localhost is the local machine/],
    ["https://devbox/hook", /devbox is a single-label \(intranet\) name/],
    ["https://api.internal/hook", /api\.internal is under \.internal/],
    ["https://printer.local/hook", /printer\.local is under \.local/],
    ["https://nas.home.arpa/hook", /nas\.home\.arpa is under \.home\.arpa/],
  ];

  it.each(refusedInLive)("refuses %s in live mode", (url, reason) => {
    const result = checkWebhookUrl(url, "live", strict);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it("lets allowPrivate through every private host in live mode, but never plain http", () => {
    for (const [url] of refusedInLive.slice(1)) {
      expect(checkWebhookUrl(url, "live", { allowPrivate: true }), url).toEqual({ ok: true, url: new URL(url).toString() });
    }
    expect(checkWebhookUrl("http://10.0.0.5/hook", "live", { allowPrivate: true })).toEqual({
      ok: false,
      reason: "live-mode webhook URLs must use https (got http:)",
    });
  });

  it("does not mistake public names that merely contain private-looking words", () => {
    for (const url of [
      "https://localhost.example.com/h",
      "https://internal.example.com/h",
      "https://local.example/h",
      "https://example.com/a.internal",
    ]) {
      expect(checkWebhookUrl(url, "live", strict), url).toEqual({ ok: true, url });
    }
  });
});

describe("isPublicAddress", () => {
  const cases: Array<[string, boolean]> = [
    ["8.8.8.8", true],
    ["1.1.1.1", true],
    ["172.32.0.1", true], // just past 172.16.0.0/12
    ["100.128.0.1", true], // just past 100.64.0.0/10
    ["10.1.2.3", false],
    ["172.16.0.1", false],
    ["172.31.255.255", false],
    ["192.168.1.1", false],
    ["127.0.0.1", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["0.0.0.0", false],
    ["192.0.2.1", false],
    ["198.18.0.1", false],
    ["224.0.0.251", false],
    ["240.0.0.1", false],
    ["2606:4700:4700::1111", true],
    ["2001:4860:4860::8888", true],
    ["::1", false],
    ["::", false],
    ["fe80::1", false],
    ["fe80::1%eth0", false],
    ["fc00::1", false],
    ["fd00::abcd", false],
    ["ff02::1", false],
    ["2001:db8::1", false],
    ["2001::1", false], // Teredo
    ["::ffff:10.0.0.1", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:7f00:1", false], // the same, as the URL parser writes it
    ["::ffff:8.8.8.8", true],
    ["64:ff9b::a00:1", false], // NAT64 of 10.0.0.1
    ["64:ff9b::808:808", true], // NAT64 of 8.8.8.8
    ["2002:a00:1::1", false], // 6to4 of 10.0.0.1
    ["2002:808:808::1", true], // 6to4 of 8.8.8.8
    ["not-an-ip", false],
    ["", false],
    ["example.com", false],
  ];

  it.each(cases)("%s → %s", (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });
});

describe("PrivateAllowlist.parse", () => {
  it("reads names, addresses and ranges, ignoring blanks and case", () => {
    const list = PrivateAllowlist.parse(" Hooks.Internal. ,,10.0.0.0/8, [::1], 192.168.1.7 ");
    expect(list).toBeInstanceOf(PrivateAllowlist);
    if (!(list instanceof PrivateAllowlist)) return;
    expect(list.hosts).toEqual(["hooks.internal"]);
    expect(list.includesAddress("10.200.0.1")).toBe(true);
    expect(list.includesAddress("::ffff:10.0.0.1")).toBe(true);
    expect(list.includesAddress("::1")).toBe(true);
    expect(list.includesAddress("192.168.1.7")).toBe(true);
    expect(list.includesAddress("192.168.1.8")).toBe(false);
    expect(list.includesAddress("11.0.0.1")).toBe(false);
    expect(PrivateAllowlist.parse("")).toBe(PrivateAllowlist.NONE);
    expect(PrivateAllowlist.NONE.empty).toBe(true);
  });

  it.each([
    ["10.0.0.0/33", "10.0.0.0/33"],
    ["hooks.internal, http://x", "http://x"],
    ["127.1", "127.1"],
    ["*.internal", "*.internal"],
  ])("refuses %s, naming the entry", (text, entry) => {
    expect(PrivateAllowlist.parse(text)).toEqual({
      problem: `'${entry}' is not a host name, an IP address or a CIDR range (such as hooks.internal, 10.1.2.3 or 10.20.0.0/16)`,
    });
  });
});
