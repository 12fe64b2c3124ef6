// The start-up line names the address the service is bound to, and says who can reach it.
import { describe, expect, it } from "vitest";
import { listeningLine } from "../../src/http/listening.ts";

describe("the listening line", () => {
  it("says that every interface means other machines can reach it", () => {
    expect(listeningLine({ address: "0.0.0.0", family: "IPv4", port: 3000 })).toBe(
      "paygate listening on 0.0.0.0:3000 (every interface: reachable from other machines; HOST=127.0.0.1 keeps it on this one). Open http://127.0.0.1:3000",
    );
    expect(listeningLine({ address: "::", family: "IPv6", port: 8080 })).toMatch(/^paygate listening on \[::\]:8080 \(every interface/);
  });

  it("says when only this machine can reach it", () => {
    expect(listeningLine({ address: "127.0.0.1", family: "IPv4", port: 3000 })).toBe(
      "paygate listening on 127.0.0.1:3000 (this machine only). Open http://127.0.0.1:3000",
    );
    expect(listeningLine({ address: "::1", family: "IPv6", port: 3000 })).toMatch(/\[::1\]:3000 \(this machine only\)/);
  });

  it("names a specific interface as it is", () => {
    expect(listeningLine({ address: "10.1.2.3", family: "IPv4", port: 3000 })).toBe(
      "paygate listening on 10.1.2.3:3000 (reachable at that address from other machines). Open http://10.1.2.3:3000",
    );
  });
});
