// The start-up line names the address the service is bound to, says who can reach it, and names the dashboard.
import { describe, expect, it } from "vitest";
import { cannotListenLine, listeningLine } from "../../src/http/listening.ts";

describe("the listening line", () => {
  it("says that every interface means other machines can reach it", () => {
    expect(listeningLine({ address: "0.0.0.0", family: "IPv4", port: 3000 })).toBe(
      "paygate listening on 0.0.0.0:3000 (every interface: reachable from other machines; HOST=127.0.0.1 keeps it on this one). Dashboard: http://127.0.0.1:3000/dashboard",
    );
    expect(listeningLine({ address: "::", family: "IPv6", port: 8080 })).toMatch(/^paygate listening on \[::\]:8080 \(every interface/);
  });

  it("says when only this machine can reach it", () => {
    expect(listeningLine({ address: "127.0.0.1", family: "IPv4", port: 3000 })).toBe(
      "paygate listening on 127.0.0.1:3000 (this machine only). Dashboard: http://127.0.0.1:3000/dashboard",
    );
    expect(listeningLine({ address: "::1", family: "IPv6", port: 3000 })).toMatch(/\[::1\]:3000 \(this machine only\)/);
  });

  it("names a specific interface as it is", () => {
    expect(listeningLine({ address: "10.1.2.3", family: "IPv4", port: 3000 })).toBe(
      "paygate listening on 10.1.2.3:3000 (reachable at that address from other machines). Dashboard: http://10.1.2.3:3000/dashboard",
    );
  });
});

describe("cannotListenLine", () => {
  const failure = (code: string, message = code) => Object.assign(new Error(message), { code });
  it("says what to change for each reason a listen fails", () => {
    expect(cannotListenLine(failure("EADDRINUSE"), "127.0.0.1", 3000)).toBe(
      "paygate cannot listen on 127.0.0.1:3000: the port is already in use (EADDRINUSE). Stop what listens there, or set PORT to a free port.",
    );
    expect(cannotListenLine(failure("EADDRNOTAVAIL"), "::1", 3000)).toMatch(/^paygate cannot listen on \[::1\]:3000: no interface .* Set HOST/);
    expect(cannotListenLine(failure("EACCES"), "0.0.0.0", 80)).toMatch(/not allowed \(EACCES.*Set PORT to 1024 or above\.$/);
    expect(cannotListenLine(failure("EMFILE", "too many open files"), "0.0.0.0", 3000)).toBe(
      "paygate cannot listen on 0.0.0.0:3000: too many open files",
    );
  });
});
