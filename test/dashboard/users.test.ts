// Dashboard users over HTTP: an owner invites (a one-time link, used once), lists, changes roles
// and removes; the merchant keeps an owner; other roles are refused every change (403
// role_forbidden) and change nothing; a removed user's sessions end at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardFetch, signedInAs, signIn, type DashboardClient } from "../support/dashboard.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { manualClock } from "../support/clock.ts";

const clock = manualClock();
let t: TestGateway;
let merchant: Awaited<ReturnType<TestGateway["merchant"]>>;
let owner: DashboardClient;
beforeAll(async () => {
  t = await startTestGateway({ clock });
  merchant = await t.merchant({ name: "Acme Stores" });
  owner = await signedInAs(t, merchant.id, "owner");
});
afterAll(async () => {
  await t?.close();
});

function expectError(answer: { status: number; body: any }, status: number, reason: string, message?: RegExp | string) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body).toMatchObject({ status: "error", reason });
  if (message) expect(answer.body.message).toMatch(message);
}

const tokenOf = (signInUrl: string) => signInUrl.slice(signInUrl.indexOf("#") + 1);
const useLink = (token: string, password: unknown) =>
  dashboardFetch(t, "POST", `/dashboard/api/sign-in-links/${token}`, password === undefined ? {} : { password }, { origin: t.url });

describe("inviting", () => {
  it("answers a one-time link (shown once, stored hashed) that sets the password and signs in, once", async () => {
    const invited = await owner.post("/dashboard/api/users", { email: " Grace@Example.COM ", role: "developer" });
    expect(invited.status).toBe(201);
    expect(invited.body.data).toMatchObject({ email: "grace@example.com", role: "developer", has_password: false });
    expect(invited.body.data.id).toMatch(/^usr_[0-9A-Za-z]{20}$/);
    const url: string = invited.body.data.sign_in_url;
    expect(url).toMatch(new RegExp(`^${t.url}/dashboard/welcome#[0-9A-Za-z]{43}$`));
    const token = tokenOf(url);
    expect(await t.db.dashboardSignInLink.count({ where: { tokenHash: token } })).toBe(0);

    // A refused password leaves the link usable.
    expectError(await useLink(token, "short"), 400, "invalid_dashboard_user", "password is too short: use at least 10 characters");
    expectError(await useLink(token, undefined), 400, "invalid_dashboard_user", /^password is required/);

    const used = await useLink(token, "a good long password");
    expect(used.status).toBe(201);
    expect(used.headers.get("set-cookie")).toMatch(/^paygate_session=/);
    expect(used.body.data).toMatchObject({ user: { email: "grace@example.com", role: "developer" }, merchant: { name: "Acme Stores" } });

    expectError(await useLink(token, "another long password"), 401, "sign_in_link_invalid", /^This sign-in link is not valid: it was used already/);
    const grace = await signIn(t, "grace@example.com", "a good long password");
    expect((await grace.get("/dashboard/api/session")).status).toBe(200);
  });

  it("refuses an expired link (24 hours, test clock) and an unknown one", async () => {
    const invited = await owner.post("/dashboard/api/users", { email: "late@example.com", role: "viewer" });
    clock.advance(24 * 3_600_000);
    expectError(await useLink(tokenOf(invited.body.data.sign_in_url), "a good long password"), 401, "sign_in_link_invalid");
    expectError(await useLink("made-up", "a good long password"), 401, "sign_in_link_invalid");
    owner = await signedInAs(t, merchant.id, "owner"); // the clock moved past the owner's idle limit
  });

  it("refuses a bad e-mail, a bad role and an e-mail of this merchant's users, naming the field", async () => {
    expectError(
      await owner.post("/dashboard/api/users", { email: "not-an-email", role: "viewer" }),
      400,
      "invalid_dashboard_user",
      "email is not an e-mail address (name@example.com)",
    );
    expectError(await owner.post("/dashboard/api/users", { role: "viewer" }), 400, "invalid_dashboard_user", /^email is required/);
    const badRole = await owner.post("/dashboard/api/users", { email: "r@example.com", role: "admin" });
    expectError(badRole, 400, "invalid_dashboard_user", "role must be one of owner, developer, viewer");
    expect(badRole.body.errors).toEqual([{ field: "role", message: "must be one of owner, developer, viewer" }]);
    await owner.post("/dashboard/api/users", { email: "taken@example.com", role: "viewer" });
    const before = await t.db.dashboardUser.count();
    const taken = await owner.post("/dashboard/api/users", { email: "TAKEN@example.com", role: "owner" });
    expectError(taken, 400, "email_taken", "email is taken: a user of this merchant has this e-mail already");
    expect(taken.body.errors).toEqual([{ field: "email", message: "is taken" }]);
    expect(await t.db.dashboardUser.count()).toBe(before);
  });
});

describe("inviting an e-mail that has an account at another merchant", () => {
  /** The other merchant's user as stored, with its sessions and links: none of it may change. */
  const stateOf = async (userId: string) =>
    JSON.stringify(
      await Promise.all([
        t.db.dashboardUser.findUniqueOrThrow({ where: { id: userId } }),
        t.db.dashboardSession.findMany({ where: { userId }, orderBy: { tokenHash: "asc" } }),
        t.db.dashboardSignInLink.findMany({ where: { userId }, orderBy: { tokenHash: "asc" } }),
      ]),
    );
  const shape = (body: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(body).map(([key, value]) => [key, value === null ? "null" : typeof value]));

  it("answers exactly as for a new e-mail (201, same body), lists it alike, and changes nothing of the other merchant's user", async () => {
    const other = await t.merchant({ name: "Rival Ltd" });
    const rival = await signedInAs(t, other.id, "owner");
    const before = await stateOf(rival.userId);

    const fresh = await owner.post("/dashboard/api/users", { email: "newcomer@example.com", role: "developer" });
    const existing = await owner.post("/dashboard/api/users", { email: rival.email.toUpperCase(), role: "developer" });
    for (const answer of [fresh, existing]) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      expect(answer.body.data).toMatchObject({ role: "developer", has_password: false });
      expect(answer.body.data.id).toMatch(/^usr_[0-9A-Za-z]{20}$/);
      expect(answer.body.data.sign_in_url).toMatch(new RegExp(`^${t.url}/dashboard/welcome#[0-9A-Za-z]{43}$`));
    }
    expect(shape(existing.body)).toEqual(shape(fresh.body));
    expect(shape(existing.body.data)).toEqual(shape(fresh.body.data));
    expect(existing.body.data.email).toBe(rival.email);
    // The test clock stands still: both links end at the same instant.
    expect(existing.body.data.sign_in_url_expires_at).toBe(fresh.body.data.sign_in_url_expires_at);
    const listed = (await owner.get("/dashboard/api/users")).body.data as { email: string; has_password: boolean; role: string }[];
    const row = (email: string) => listed.find((u) => u.email === email);
    expect(row(rival.email)).toEqual({
      ...row("newcomer@example.com"),
      id: existing.body.data.id,
      email: rival.email,
      created_at: expect.any(String),
    });

    // The link of the new e-mail signs in; the other one never does, and leaves the rival's account as it was.
    expect((await useLink(tokenOf(fresh.body.data.sign_in_url), "a good long password")).status).toBe(201);
    expectError(
      await useLink(tokenOf(existing.body.data.sign_in_url), "the attacker's password"),
      401,
      "sign_in_link_invalid",
      /^This sign-in link is not valid/,
    );
    expect(await stateOf(rival.userId)).toBe(before);
    expect((await rival.get("/dashboard/api/session")).body.data).toMatchObject({ user: { id: rival.userId }, merchant: { id: other.id } });
    const again = await signIn(t, rival.email);
    expect((await again.get("/dashboard/api/session")).body.data.merchant.id).toBe(other.id);
    await expect(signIn(t, rival.email, "the attacker's password")).rejects.toThrow(/401/);

    // The owner may remove the invitation; the rival's account stays.
    expect((await owner.delete(`/dashboard/api/users/${existing.body.data.id}`)).status).toBe(200);
    expect(await t.db.dashboardUser.count({ where: { email: rival.email } })).toBe(1);
    expect((await signIn(t, rival.email)).userId).toBe(rival.userId);
  });

  it("lets two merchants invite one new e-mail: the first link used gets the account, the other then never signs in", async () => {
    const other = await t.merchant({ name: "Second Ltd" });
    const otherOwner = await signedInAs(t, other.id, "owner");
    const here = await owner.post("/dashboard/api/users", { email: "wanted@example.com", role: "viewer" });
    const there = await otherOwner.post("/dashboard/api/users", { email: "wanted@example.com", role: "owner" });
    expect([here.status, there.status]).toEqual([201, 201]);
    const used = await useLink(tokenOf(there.body.data.sign_in_url), "a good long password");
    expect(used.status).toBe(201);
    expect(used.body.data.merchant.id).toBe(other.id);
    expectError(await useLink(tokenOf(here.body.data.sign_in_url), "another long password"), 401, "sign_in_link_invalid");
    expect((await signIn(t, "wanted@example.com", "a good long password")).userId).toBe(there.body.data.id);
    expect(await t.db.dashboardUser.findUniqueOrThrow({ where: { id: here.body.data.id } })).toMatchObject({ passwordHash: null });
  });

  it("still tells the operator (paygate user create) that an e-mail is taken at any merchant", async () => {
    const other = await t.merchant({ name: "Operator Ltd" });
    await t.gateway.operator.createDashboardUser({
      merchantId: other.id,
      email: "known@example.com",
      role: "owner",
      password: "a good long password",
    });
    const before = await t.db.dashboardUser.count();
    await expect(
      t.gateway.operator.createDashboardUser({ merchantId: merchant.id, email: "known@example.com", role: "viewer" }),
    ).rejects.toMatchObject({
      reason: "email_taken",
      message: "email is taken: a dashboard user with this e-mail exists already (an e-mail belongs to one merchant's dashboard)",
    });
    await owner.post("/dashboard/api/users", { email: "pending@example.com", role: "viewer" });
    await expect(
      t.gateway.operator.createDashboardUser({ merchantId: other.id, email: "pending@example.com", role: "viewer" }),
    ).rejects.toMatchObject({
      reason: "email_taken",
    });
    expect(await t.db.dashboardUser.count()).toBe(before + 1);
  });
});

describe("changing and removing", () => {
  it("lists the merchant's users only, oldest first, never a password hash", async () => {
    const other = await t.merchant({ name: "Elsewhere" });
    await t.gateway.operator.createDashboardUser({ merchantId: other.id, email: "elsewhere@example.com", role: "owner" });
    const list = await owner.get("/dashboard/api/users");
    expect(list.status).toBe(200);
    const emails = list.body.data.map((u: { email: string }) => u.email);
    expect(emails).not.toContain("elsewhere@example.com");
    expect(emails).toContain(owner.email);
    expect(JSON.stringify(list.body)).not.toMatch(/scrypt|password_hash/);
  });

  it("changes a role, and refuses an unknown role or user, and another merchant's user (404)", async () => {
    const invited = await owner.post("/dashboard/api/users", { email: "role@example.com", role: "viewer" });
    const id = invited.body.data.id;
    const changed = await owner.patch(`/dashboard/api/users/${id}`, { role: "developer" });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id, role: "developer" });
    expectError(await owner.patch(`/dashboard/api/users/${id}`, { role: "root" }), 400, "invalid_dashboard_user");
    expectError(
      await owner.patch("/dashboard/api/users/usr_nobody", { role: "viewer" }),
      404,
      "dashboard_user_not_found",
      "No dashboard user with id 'usr_nobody' at this merchant",
    );
    const other = await t.merchant({ name: "Third" });
    const foreign = await t.gateway.operator.createDashboardUser({ merchantId: other.id, email: "foreign@example.com", role: "owner" });
    expectError(await owner.patch(`/dashboard/api/users/${foreign.user.id}`, { role: "viewer" }), 404, "dashboard_user_not_found");
    expectError(await owner.delete(`/dashboard/api/users/${foreign.user.id}`), 404, "dashboard_user_not_found");
  });

  it("never leaves a merchant without an owner: the last one cannot be demoted or removed (422)", async () => {
    const solo = await t.merchant({ name: "Solo" });
    const only = await signedInAs(t, solo.id, "owner");
    expectError(
      await only.patch(`/dashboard/api/users/${only.userId}`, { role: "viewer" }),
      422,
      "last_owner",
      /^A merchant needs at least one owner/,
    );
    expectError(await only.delete(`/dashboard/api/users/${only.userId}`), 422, "last_owner");
    const second = await signedInAs(t, solo.id, "owner");
    expect((await second.delete(`/dashboard/api/users/${only.userId}`)).status).toBe(200);
    expectError(await second.delete(`/dashboard/api/users/${second.userId}`), 422, "last_owner");
  });

  it("keeps an owner when two owners demote each other at once: one change wins, the other is refused", async () => {
    const pair = await t.merchant({ name: "Pair" });
    const a = await signedInAs(t, pair.id, "owner");
    const b = await signedInAs(t, pair.id, "owner");
    const answers = await Promise.all([
      a.patch(`/dashboard/api/users/${b.userId}`, { role: "viewer" }),
      b.patch(`/dashboard/api/users/${a.userId}`, { role: "viewer" }),
    ]);
    // The loser is refused as a viewer (403) or as the last owner (422), depending on when its request read its session.
    const [won, lost] = answers[0]?.status === 200 ? answers : [answers[1], answers[0]];
    expect(won?.status).toBe(200);
    expect([403, 422]).toContain(lost?.status);
    expect(await t.db.dashboardUser.count({ where: { merchantId: pair.id, role: "owner" } })).toBe(1);
  });

  it("ends a removed user's sessions at once", async () => {
    const removed = await signedInAs(t, merchant.id, "developer");
    expect((await removed.get("/dashboard/api/session")).status).toBe(200);
    const answer = await owner.delete(`/dashboard/api/users/${removed.userId}`);
    expect(answer.status).toBe(200);
    expect(answer.body.data.id).toBe(removed.userId);
    expectError(await removed.get("/dashboard/api/session"), 401, "session_required");
    expectError(
      await dashboardFetch(t, "POST", "/dashboard/api/session", { email: removed.email, password: "correct horse battery staple" }),
      401,
      "sign_in_failed",
    );
  });
});

describe("roles", () => {
  for (const role of ["viewer", "developer"] as const) {
    it(`refuses a ${role} every change to users (403 role_forbidden) and changes nothing`, async () => {
      const client = await signedInAs(t, merchant.id, role);
      const before = await t.db.dashboardUser.findMany({ where: { merchantId: merchant.id }, orderBy: { id: "asc" } });
      const answers = [
        await client.post("/dashboard/api/users", { email: `by-${role}@example.com`, role: "owner" }),
        await client.patch(`/dashboard/api/users/${client.userId}`, { role: "owner" }),
        await client.patch(`/dashboard/api/users/${owner.userId}`, { role: "viewer" }),
        await client.delete(`/dashboard/api/users/${owner.userId}`),
      ];
      for (const answer of answers) {
        expectError(answer, 403, "role_forbidden", `Your role (${role}) cannot manage users; ask an owner of this merchant for the owner role`);
      }
      expect(await t.db.dashboardUser.findMany({ where: { merchantId: merchant.id }, orderBy: { id: "asc" } })).toEqual(before);
      expect((await client.get("/dashboard/api/users")).status).toBe(200);
    });
  }
});
