// The second factor in the page: what a typed code is (an authenticator app's 6 digits, or a
// recovery code), and the re-authentication dialog that a change refused for an old sign-in opens
// (sudo mode). The dialog is a modal <dialog>: focus moves to its password field, Escape or Cancel
// closes it, errors are announced (role=alert), and focus returns to the control that was used.
import { h, replace } from "../shared/dom.ts";
import { messageOf, type DashboardApi, type Session } from "./api.ts";
import { assertKey } from "./security-key.ts";

/** The body field a typed code belongs in: `code` for six digits (spaces allowed), else `recovery_code`. */
export function proofOf(typed: string): { code: string } | { recovery_code: string } {
  const digits = typed.replace(/\s/g, "");
  return /^\d{6}$/.test(digits) ? { code: digits } : { recovery_code: typed.trim() };
}

/** A field for an authenticator code or a recovery code, with its label and hint. */
export function codeField(id: string, label = "Authentication code"): { field: HTMLElement; input: HTMLInputElement } {
  const input = h("input", {
    id,
    name: "code",
    type: "text",
    inputmode: "numeric",
    autocomplete: "one-time-code",
    spellcheck: "false",
    required: true,
    "aria-describedby": `${id}-hint`,
  });
  const field = h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    input,
    h("p", { class: "hint", id: `${id}-hint` }, "The 6-digit code your authenticator app shows, or one of your recovery codes (xxxxx-xxxxx)."),
  );
  return { field, input };
}

/**
 * Asks for the password (and a code or a security key when the user has a second factor) and
 * proves them again; resolves true once the service accepted them, false when the user cancelled.
 */
export function askReauthentication(api: DashboardApi, session: Session): Promise<boolean> {
  const returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const error = h("div", { class: "alert-slot", role: "alert", id: "reauth-error" });
  const password = h("input", { id: "reauth-password", name: "password", type: "password", autocomplete: "current-password", required: true });
  const code = session.second_factor.authenticator_app ? codeField("reauth-code") : null;
  const withKey = session.second_factor.security_keys > 0;
  // With a key only, Confirm asks for the key; with an app too, a second button does.
  const keyButton = withKey && code ? h("button", { type: "button", class: "button secondary" }, "Use a security key instead") : null;
  const confirm = h("button", { type: "submit", class: "button" }, withKey && !code ? "Confirm with your security key" : "Confirm");
  const cancel = h("button", { type: "button", class: "button secondary" }, "Cancel");
  const form = h(
    "form",
    { novalidate: true },
    h("h2", { id: "reauth-title" }, "Confirm it is you"),
    h(
      "p",
      { id: "reauth-about" },
      session.second_factor.enabled
        ? `This change needs your password and ${code ? "an authentication code" : "your security key"}${code && withKey ? " (or your security key)" : ""} again: you last gave them more than a few minutes ago.`
        : "This change needs your password again: you last gave it more than a few minutes ago.",
    ),
    error,
    h("div", { class: "field" }, h("label", { for: "reauth-password" }, "Password"), password),
    code?.field,
    h("div", { class: "actions" }, confirm, keyButton, cancel),
  );
  const dialog = h("dialog", { class: "dialog", id: "reauth-dialog", "aria-labelledby": "reauth-title", "aria-describedby": "reauth-about" }, form);
  document.body.appendChild(dialog);

  return new Promise<boolean>((resolve) => {
    let proved = false;
    dialog.addEventListener("close", () => {
      dialog.remove();
      returnFocus?.focus();
      resolve(proved);
    });
    cancel.addEventListener("click", () => dialog.close());
    /** Sends the password with the second factor's proof (`proof` runs once the password is there). */
    const prove = async (control: HTMLButtonElement, proof: () => Promise<Record<string, unknown>>) => {
      replace(error);
      if (!password.value) {
        replace(error, h("p", { class: "alert" }, "Enter your password"));
        password.focus();
        return;
      }
      control.disabled = true;
      try {
        const renewed = await api.post<Session>("/session/reauthenticate", { password: password.value, ...(await proof()) });
        session.reauthenticate_after = renewed.reauthenticate_after;
        proved = true;
        dialog.close();
      } catch (failure) {
        replace(error, h("p", { class: "alert" }, messageOf(failure)));
        password.value = "";
        if (code) code.input.value = "";
        password.focus();
      } finally {
        control.disabled = false;
      }
    };
    const withSecurityKey = async () => ({ security_key: await assertKey(api, "/session/reauthenticate/security-key") });
    keyButton?.addEventListener("click", () => void prove(keyButton, withSecurityKey));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (code && password.value && !code.input.value.trim()) {
        replace(error, h("p", { class: "alert" }, "Enter an authentication code"));
        code.input.focus();
        return;
      }
      void prove(confirm, code ? async () => proofOf(code.input.value) : withKey ? withSecurityKey : async () => ({}));
    });
    dialog.showModal();
    password.focus();
  });
}
