// Security: the signed-in user's two-factor authentication. Setting it up shows the authenticator
// app's QR code and key, takes one code of the app to confirm, then shows the ten recovery codes
// once; turning it off takes the password and a code. Security keys (WebAuthn) are listed, added
// under a name (the browser asks for the key) and removed (within sudo mode: the dialog asks for
// the password and a factor again when needed). Every role has this page (each user's own
// factors); when the service requires a second factor, it is the only page until one is set up.
// The user's own e-mail notices (a payment received, a webhook endpoint disabled) are set here too.
import { copyText } from "../../shared/clipboard.ts";
import { h, replace } from "../../shared/dom.ts";
import type { Session } from "../api.ts";
import { browserSupportsWebAuthn, createKey } from "../security-key.ts";
import type { PageContext } from "../context.ts";
import { codeField, proofOf } from "../second-factor.ts";
import { alertSlot, field, LANGUAGES, runChange, showError, table, when } from "./parts.ts";

interface Enrolment {
  secret: string;
  otpauth_uri: string;
  qr_code: string;
}

export async function renderSecurity(ctx: PageContext, main: HTMLElement): Promise<void> {
  const body = h("div", {});
  const keys = h("section", { "aria-labelledby": "security-keys-title" });
  const notices = h("section", { "aria-labelledby": "email-notices-title" });
  replace(
    main,
    h("h1", {}, "Security"),
    ctx.session.second_factor.enrolment_required
      ? h(
          "p",
          { class: "alert", id: "enrolment-required" },
          "This service requires two-factor authentication for owners and developers. Set up an authenticator app or a security key below; until then the rest of the dashboard is closed to you.",
        )
      : null,
    h("h2", {}, "Two-factor authentication"),
    body,
    h("h2", { id: "security-keys-title" }, "Security keys"),
    keys,
    h("h2", { id: "email-notices-title" }, "E-mail notices"),
    notices,
  );
  (ctx.session.second_factor.authenticator_app ? showEnabled : showDisabled)(ctx, body);
  await showSecurityKeys(ctx, keys);
  await showNotices(ctx, notices);
}

/** Issue 44: the user's own choice to get the merchant's notices by e-mail (off by default). */
async function showNotices(ctx: PageContext, section: HTMLElement): Promise<void> {
  const error = alertSlot("email-notices-error");
  let state: { enabled: boolean; sending: boolean; not_sent_because: string | null };
  let language: { locale: string };
  try {
    state = await ctx.api.get("/account/email-notices");
    language = await ctx.api.get("/account/notice-language");
  } catch (failure) {
    // Closed while a required second factor is not set up: the rest of the page still works.
    replace(section, error);
    showError(error, failure);
    return;
  }
  const box = h("input", { id: "email-notices", type: "checkbox", ...(state.enabled ? { checked: true } : {}) });
  const locale = h(
    "select",
    { id: "notice-language" },
    ...LANGUAGES.map(([value, label]) => h("option", { value, ...(value === language.locale ? { selected: true } : {}) }, label)),
  );
  const save = h("button", { type: "button", class: "button" }, "Save");
  save.addEventListener("click", () => {
    void runChange(save, error, async () => {
      const user = encodeURIComponent(ctx.session.user.id);
      const changed = await ctx.api.patch<{ enabled: boolean }>(`/users/${user}/email-notices`, { enabled: box.checked });
      const written = await ctx.api.patch<{ locale: string }>(`/users/${user}/notice-language`, { locale: locale.value });
      const name = LANGUAGES.find(([code]) => code === written.locale)?.[1] ?? written.locale;
      const message = changed.enabled ? `You will get the merchant's notices by e-mail, in ${name}.` : "You will get no notices by e-mail.";
      replace(error, h("p", { class: "notice", role: "status" }, message));
      ctx.announce(message);
    });
  });
  replace(
    section,
    h(
      "p",
      {},
      h(
        "label",
        { for: "email-notices" },
        box,
        ` E-mail me (${ctx.session.user.email}) when a payment is received, a webhook endpoint is disabled or a transfer matches no payment`,
      ),
    ),
    field("Language of the notices", locale),
    state.sending ? null : h("p", { class: "alert", role: "status" }, "E-mail is off: PAYGATE_SMTP_URL is not set, so nothing is sent."),
    h("div", { class: "actions" }, save),
    error,
  );
}

/** The authenticator app is off: what signing in asks for then. */
const appOffStatus = (session: Session): string =>
  session.second_factor.security_keys > 0 ? "Off. Signing in asks for one of your security keys instead." : "Off. Your password alone signs you in.";

interface SecurityKey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/** The user's keys, a form to add one (the browser asks for the key), and a remove button each. */
async function showSecurityKeys(ctx: PageContext, section: HTMLElement): Promise<void> {
  const { security_keys: list } = await ctx.api.get<{ security_keys: SecurityKey[] }>("/security-keys");
  const error = alertSlot("security-key-error");
  const name = h("input", { id: "security-key-name", name: "name", type: "text", maxlength: "64", required: true, autocomplete: "off" });
  const add = h("button", { type: "submit", class: "button" }, "Add a security key");
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "add-key-title", novalidate: true },
    h("h3", { id: "add-key-title" }, "Add a security key"),
    h(
      "div",
      { class: "field" },
      h("label", { for: "security-key-name" }, "Name of the key"),
      name,
      h("p", { class: "hint", id: "security-key-name-hint" }, "To tell your keys apart, such as “YubiKey on my keyring”."),
    ),
    error,
    add,
  );
  name.setAttribute("aria-describedby", "security-key-name-hint");
  const refresh = async (message: string) => {
    await refreshSession(ctx);
    const appStatus = document.getElementById("second-factor-status");
    if (appStatus && !ctx.session.second_factor.authenticator_app) appStatus.textContent = appOffStatus(ctx.session);
    await showSecurityKeys(ctx, section);
    section.querySelector<HTMLElement>("#security-keys-status")?.focus();
    ctx.announce(message);
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!name.value.trim()) {
      replace(error, h("p", { class: "alert" }, "Enter a name for the key"));
      name.focus();
      return;
    }
    void runChange(
      add,
      error,
      async () => {
        const { options } = await ctx.api.post<{ options: Parameters<typeof createKey>[0] }>("/security-keys/options");
        const response = await createKey(options);
        await ctx.api.post("/security-keys", { name: name.value, response });
        await refresh(`Security key “${name.value.trim()}” added`);
      },
      name,
    );
  });
  const rows = list.map((key) => {
    const remove = h("button", { type: "button", class: "button danger", "aria-label": `Remove ${key.name}` }, "Remove");
    remove.addEventListener("click", () => {
      void runChange(remove, error, async () => {
        await ctx.api.delete(`/security-keys/${encodeURIComponent(key.id)}`);
        await refresh(`Security key “${key.name}” removed`);
      });
    });
    return [key.name, when(key.created_at), when(key.last_used_at), remove];
  });
  const supported = browserSupportsWebAuthn();
  replace(
    section,
    h(
      "p",
      { id: "security-keys-status", tabindex: "-1" },
      list.length === 0
        ? "None. A security key (such as a YubiKey) signs you in with a touch instead of a code; it only answers this site, so a phishing page cannot use it."
        : `${list.length} registered. Signing in can use any of them instead of a code.`,
    ),
    list.length > 0 ? table("Your security keys", ["Name", "Added", "Last used", "Actions"], rows) : null,
    supported ? form : h("p", { class: "notice" }, "This browser cannot use security keys (WebAuthn)."),
  );
}

function showDisabled(ctx: PageContext, body: HTMLElement): void {
  const error = alertSlot("enrol-error");
  const start = h("button", { type: "button", class: "button" }, "Set up an authenticator app");
  const step = h("div", {});
  start.addEventListener("click", () => {
    void runChange(start, error, async () => {
      const enrolment = await ctx.api.post<Enrolment>("/second-factor");
      showEnrolment(ctx, body, step, enrolment);
    });
  });
  replace(
    body,
    h("p", { id: "second-factor-status" }, appOffStatus(ctx.session)),
    h(
      "p",
      { class: "lead" },
      "With an authenticator app (such as Google Authenticator, 1Password or Aegis), signing in also asks for the 6-digit code the app shows, so a stolen password is not enough to change where payments go.",
    ),
    error,
    start,
    step,
  );
}

function showEnrolment(ctx: PageContext, body: HTMLElement, step: HTMLElement, enrolment: Enrolment): void {
  const error = alertSlot("confirm-error");
  const code = codeField("enrol-code", "Code from the app");
  const confirm = h("button", { type: "submit", class: "button" }, "Turn on");
  const heading = h("h3", { tabindex: "-1", id: "enrol-title" }, "Scan this code with your authenticator app");
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "enrol-title", novalidate: true },
    heading,
    h("img", {
      src: enrolment.qr_code,
      alt: "QR code for your authenticator app (the same as the setup key below)",
      class: "qr",
      width: "205",
      height: "205",
    }),
    h("p", {}, "Or type this setup key into the app: ", h("code", { id: "totp-secret" }, enrolment.secret)),
    code.field,
    error,
    confirm,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void runChange(
      confirm,
      error,
      async () => {
        const done = await ctx.api.post<{ recovery_codes: string[] }>("/second-factor/confirm", proofOf(code.input.value));
        await refreshSession(ctx);
        showRecoveryCodes(ctx, body, done.recovery_codes);
      },
      code.input,
    );
  });
  replace(step, form);
  heading.focus();
}

/** The session again (the factor is on, and what the role may do when it was required): the pages read it. */
async function refreshSession(ctx: PageContext): Promise<void> {
  Object.assign(ctx.session, await ctx.api.get<Session>("/session"));
}

function showRecoveryCodes(ctx: PageContext, body: HTMLElement, codes: string[]): void {
  const status = h("span", { role: "status" });
  const heading = h("h3", { tabindex: "-1", id: "recovery-title" }, "Two-factor authentication is on: save your recovery codes");
  replace(
    body,
    h("p", { id: "second-factor-status" }, "On. Signing in asks for a code of your authenticator app."),
    h(
      "section",
      { class: "card notice-card", "aria-labelledby": "recovery-title" },
      heading,
      h(
        "p",
        {},
        "Shown once: keep them somewhere safe. Each signs you in once instead of a code, if you lose your phone. The service keeps only their hashes.",
      ),
      h("ol", { class: "recovery-codes", id: "recovery-codes" }, ...codes.map((c) => h("li", {}, h("code", {}, c)))),
      h(
        "div",
        { class: "actions" },
        h(
          "button",
          {
            type: "button",
            class: "button secondary",
            onclick: () =>
              void copyText(codes.join("\n")).then((ok) => {
                status.textContent = ok ? "Copied" : "Copying failed: select the codes and copy them";
              }),
          },
          "Copy the codes",
        ),
        h("a", { href: ctx.href("/"), "data-route": "", class: "button" }, "Continue to the dashboard"),
      ),
      status,
    ),
  );
  heading.focus();
  ctx.announce("Two-factor authentication is on");
}

function showEnabled(ctx: PageContext, body: HTMLElement): void {
  const error = alertSlot("disable-error");
  const password = h("input", { id: "disable-password", name: "password", type: "password", autocomplete: "current-password", required: true });
  const code = codeField("disable-code");
  const submit = h("button", { type: "submit", class: "button danger" }, "Turn off");
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "disable-title", novalidate: true },
    h("h3", { id: "disable-title" }, "Turn off two-factor authentication"),
    h("p", { class: "hint" }, "Your password and a code (or a recovery code) are needed; your recovery codes stop working too."),
    h("div", { class: "field" }, h("label", { for: "disable-password" }, "Password"), password),
    code.field,
    error,
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void runChange(
      submit,
      error,
      async () => {
        await ctx.api.post("/second-factor/disable", { password: password.value, ...proofOf(code.input.value) });
        await refreshSession(ctx);
        showDisabled(ctx, body);
        const status = body.querySelector<HTMLElement>("#second-factor-status");
        status?.setAttribute("tabindex", "-1");
        status?.focus();
        ctx.announce("Two-factor authentication is off");
      },
      password,
    );
  });
  replace(body, h("p", { id: "second-factor-status" }, "On. Signing in asks for a code of your authenticator app."), form);
}
