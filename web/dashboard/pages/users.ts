// Users: who can sign in to this merchant's dashboard, with their roles. An owner invites (the
// one-time sign-in link is shown once, to pass on), changes roles and removes users; other roles
// see the list only.
import { copyText } from "../../shared/clipboard.ts";
import { h, replace } from "../../shared/dom.ts";
import { messageOf, type Role } from "../api.ts";
import type { PageContext } from "../context.ts";
import { when } from "./parts.ts";

interface User {
  id: string;
  email: string;
  role: Role;
  created_at: string;
  has_password: boolean;
}

interface Invited extends User {
  sign_in_url: string;
  sign_in_url_expires_at: string;
}

const ROLES: { value: Role; label: string; about: string }[] = [
  { value: "owner", label: "Owner", about: "everything, users included" },
  { value: "developer", label: "Developer", about: "API keys, webhooks, wallets, and reading" },
  { value: "viewer", label: "Viewer", about: "reading only" },
];

export async function renderUsers(ctx: PageContext, main: HTMLElement): Promise<void> {
  const manage = ctx.can("manage_users");
  const alert = h("div", { class: "alert-slot", role: "alert" });
  const invited = h("div", { class: "invited" });
  const list = h("div", { class: "table-wrap" });

  const reload = async () => {
    const users = await ctx.api.get<User[]>("/users");
    replace(list, usersTable(ctx, users, manage, { alert, reload }));
  };

  replace(
    main,
    h("h1", {}, "Users"),
    h(
      "p",
      { class: "lead" },
      manage
        ? "Invite the people who work on this merchant, and choose what each may do."
        : `The people who can sign in to this merchant's dashboard.${ctx.roleNote(" Only an owner can invite or change users.")}`,
    ),
    alert,
    manage ? inviteForm(ctx, { alert, invited, reload }) : null,
    invited,
    h("h2", {}, "Everyone with access"),
    list,
  );
  await reload();
}

interface Slots {
  alert: HTMLElement;
  reload: () => Promise<void>;
}

function inviteForm(ctx: PageContext, slots: Slots & { invited: HTMLElement }): HTMLElement {
  const email = h("input", { id: "invite-email", name: "email", type: "email", autocomplete: "off", required: true, spellcheck: "false" });
  const role = h(
    "select",
    { id: "invite-role", name: "role" },
    ...ROLES.map((r) => h("option", { value: r.value, selected: r.value === "viewer" }, `${r.label}: ${r.about}`)),
  );
  const submit = h("button", { type: "submit", class: "button" }, "Invite");
  const form = h(
    "form",
    { class: "card invite", "aria-labelledby": "invite-title", novalidate: true },
    h("h2", { id: "invite-title" }, "Invite a user"),
    h("div", { class: "field" }, h("label", { for: "invite-email" }, "E-mail"), email),
    h("div", { class: "field" }, h("label", { for: "invite-role" }, "Role"), role),
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void (async () => {
      replace(slots.alert);
      submit.disabled = true;
      try {
        const user = await ctx.api.post<Invited>("/users", { email: email.value, role: role.value });
        email.value = "";
        showLink(slots.invited, user);
        await slots.reload();
      } catch (error) {
        replace(slots.alert, h("p", { class: "alert" }, messageOf(error)));
        email.focus();
      } finally {
        submit.disabled = false;
      }
    })();
  });
  return form;
}

/** The invitation's link, shown this once: the service keeps only its hash. */
function showLink(slot: HTMLElement, user: Invited): void {
  const status = h("span", { role: "status" });
  const link = h("input", { id: "invite-link", type: "text", readonly: true, value: user.sign_in_url, "aria-describedby": "invite-link-note" });
  const heading = h("h2", { tabindex: "-1", id: "invitation-title" }, `Invitation for ${user.email}`);
  replace(
    slot,
    h(
      "section",
      { class: "card notice-card", "aria-labelledby": "invitation-title" },
      heading,
      h("label", { for: "invite-link" }, "One-time sign-in link"),
      link,
      h(
        "p",
        { class: "hint", id: "invite-link-note" },
        `Shown once: copy it now and send it to ${user.email}. It works once, until ${when(user.sign_in_url_expires_at)}, and not for an address that already signs in to another merchant's dashboard.`,
      ),
      h(
        "button",
        {
          type: "button",
          class: "button secondary",
          onclick: () =>
            void copyText(user.sign_in_url).then((ok) => {
              status.textContent = ok ? "Link copied" : "Copying failed: select the link and copy it";
            }),
        },
        "Copy link",
      ),
      status,
    ),
  );
  heading.focus();
}

function usersTable(ctx: PageContext, users: User[], manage: boolean, slots: Slots): HTMLElement {
  return h(
    "table",
    { class: "table" },
    h("caption", { class: "sr-only" }, "Dashboard users"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "E-mail"),
        h("th", { scope: "col" }, "Role"),
        h("th", { scope: "col" }, "Status"),
        manage ? h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Actions")) : null,
      ),
    ),
    h(
      "tbody",
      {},
      ...users.map((user) =>
        h(
          "tr",
          {},
          h("td", { "data-label": "E-mail" }, user.email, user.id === ctx.session.user.id ? " (you)" : ""),
          h("td", { "data-label": "Role" }, manage ? roleSelect(ctx, user, slots) : roleLabel(user.role)),
          h("td", { "data-label": "Status" }, user.has_password ? "Active" : "Invited"),
          manage ? h("td", { "data-label": "Actions" }, removeButton(ctx, user, slots)) : null,
        ),
      ),
    ),
  );
}

const roleLabel = (role: Role) => ROLES.find((r) => r.value === role)?.label ?? role;

function roleSelect(ctx: PageContext, user: User, slots: Slots): HTMLElement {
  const select = h(
    "select",
    { "aria-label": `Role of ${user.email}` },
    ...ROLES.map((r) => h("option", { value: r.value, selected: r.value === user.role }, r.label)),
  );
  select.addEventListener("change", () => {
    void (async () => {
      replace(slots.alert);
      try {
        await ctx.api.patch(`/users/${encodeURIComponent(user.id)}`, { role: select.value });
        ctx.announce(`${user.email} is now ${roleLabel(select.value as Role).toLowerCase()}`);
        user.role = select.value as Role;
      } catch (error) {
        select.value = user.role;
        replace(slots.alert, h("p", { class: "alert" }, messageOf(error)));
      }
    })();
  });
  return select;
}

function removeButton(ctx: PageContext, user: User, slots: Slots): HTMLElement {
  return h(
    "button",
    {
      type: "button",
      class: "button danger",
      onclick: () =>
        void (async () => {
          if (!window.confirm(`Remove ${user.email}? They are signed out at once and can no longer sign in.`)) return;
          replace(slots.alert);
          try {
            await ctx.api.delete(`/users/${encodeURIComponent(user.id)}`);
            ctx.announce(`${user.email} was removed`);
            await slots.reload();
          } catch (error) {
            replace(slots.alert, h("p", { class: "alert" }, messageOf(error)));
          }
        })(),
    },
    "Remove",
    h("span", { class: "sr-only" }, ` ${user.email}`),
  );
}
