import { describe, expect, it } from "vitest";
import { authorize, can, permissionsOf, type DashboardActor } from "../../src/core/access/roles.ts";
import { PaygateError } from "../../src/core/errors.ts";
import { systemClock } from "../../src/core/gateway.ts";
import { freshActor } from "../support/dashboard.ts";

const actor = (role: DashboardActor["role"]): DashboardActor => freshActor(1, role, systemClock, "usr_1");

describe("dashboard roles", () => {
  it("lets an owner do everything, a developer everything but users and payment links, a viewer only read", () => {
    expect(can(actor("owner"), "manage_users")).toBe(true);
    expect(can(actor("developer"), "manage_keys")).toBe(true);
    expect(can(actor("developer"), "manage_users")).toBe(false);
    expect(can(actor("viewer"), "read")).toBe(true);
    expect(can(actor("viewer"), "manage_webhooks")).toBe(false);
  });

  it("refuses with 403 role_forbidden naming the roles that may", () => {
    let thrown: unknown;
    try {
      authorize(actor("viewer"), "manage_payment_links");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PaygateError);
    expect(thrown).toMatchObject({
      code: "forbidden",
      reason: "role_forbidden",
      message: "Your role (viewer) cannot manage payment links; ask an owner of this merchant for the owner role",
    });
    expect(() => authorize(actor("owner"), "manage_payment_links")).not.toThrow();
  });

  it("keeps a deactivated merchant's users to reading: every change is refused with 403 merchant_inactive", () => {
    const closed = (role: DashboardActor["role"]): DashboardActor => ({ ...actor(role), merchantActive: false });
    expect(can(closed("owner"), "read")).toBe(true);
    expect(can(closed("owner"), "manage_users")).toBe(false);
    expect(permissionsOf(closed("owner")).filter((p) => p.startsWith("manage_"))).toEqual([]);
    expect(permissionsOf(closed("owner"))).toContain("read");
    expect(permissionsOf(actor("owner"))).toContain("manage_wallets");
    expect(() => authorize(closed("owner"), "read")).not.toThrow();
    for (const permission of ["manage_keys", "manage_webhooks", "manage_wallets", "manage_payment_links", "manage_users"] as const) {
      expect(() => authorize(closed("owner"), permission)).toThrow(
        expect.objectContaining({
          code: "forbidden",
          reason: "merchant_inactive",
          message:
            "This merchant is deactivated, so its dashboard is read-only: nothing can be changed until the operator reactivates it (paygate merchant update ID --active true)",
        }),
      );
    }
    // A role that could not anyway is told so.
    expect(() => authorize(closed("viewer"), "manage_keys")).toThrow(expect.objectContaining({ reason: "role_forbidden" }));
  });
});
