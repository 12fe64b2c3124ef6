import { describe, expect, it } from "vitest";
import { authorize, can, type DashboardActor } from "../../src/core/dashboard/access.ts";
import { PaygateError } from "../../src/core/errors.ts";

const actor = (role: DashboardActor["role"]): DashboardActor => ({ userId: "usr_1", merchantId: 1, role });

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
});
