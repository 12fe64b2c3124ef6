// The merchant dashboard (/dashboard): a small single-page app over /dashboard/api. It shows the
// sign-in page, the set-password page of a one-time link (/dashboard/welcome#token), or the shell
// (header with the merchant, its KYB status and the test/live switch; the navigation; the page).
// The mode lives in the address (`?mode=live`, test by default) so a reload or a shared link keeps
// it. After every navigation focus moves to the page's heading and its title is announced.
import "../shared/base.css";
import "./dashboard.css";
import { h, replace } from "../shared/dom.ts";
import { ApiError, DashboardApi, messageOf, type Mode, type SecondFactorChallenge, type Session } from "./api.ts";
import type { DashboardPage, PageContext } from "./context.ts";
import { PAGES } from "./pages/index.ts";
import { askReauthentication, codeField, proofOf } from "./second-factor.ts";
import { assertKey } from "./security-key.ts";

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const top = element<HTMLElement>("top");
const nav = element<HTMLElement>("nav");
const main = element<HTMLElement>("main");
const banner = element<HTMLElement>("mode-banner");
const readOnlyBanner = element<HTMLElement>("read-only-banner");
const announcer = element<HTMLElement>("announcer");

const api = new DashboardApi();
let session: Session | null = null;
let firstView = true;
// Sudo mode: a change refused for an old sign-in asks for the password (and code) and is sent again.
api.onReauthenticationRequired = () => (session ? askReauthentication(api, session) : Promise.resolve(false));
// The service requires a second factor first: to the Security page, which sets it up.
api.onEnrolmentRequired = () => {
  if (session) session.second_factor.enrolment_required = true;
  if (routeOfAddress() !== "security") navigate(href("/security"), true);
};

const KYB_LABELS: Record<Session["merchant"]["kyb_status"], string> = {
  NONE: "KYB not started",
  PENDING: "KYB under review",
  VERIFIED: "KYB verified",
  REJECTED: "KYB rejected",
};

// ---- addresses ---------------------------------------------------------------------------------

function modeOfAddress(): Mode {
  return new URLSearchParams(location.search).get("mode") === "live" ? "live" : "test";
}

function href(path: string, query: Record<string, string> = {}, mode = modeOfAddress()): string {
  const params = new URLSearchParams(query);
  if (mode === "live") params.set("mode", "live");
  const search = params.toString();
  return `/dashboard${path.startsWith("/") ? path : `/${path}`}${search ? `?${search}` : ""}`;
}

function navigate(address: string, replaceEntry = false): void {
  if (replaceEntry) history.replaceState(null, "", address);
  else history.pushState(null, "", address);
  void show();
}

/** The page path after /dashboard/ ("" for the dashboard's root). */
function routeOfAddress(): string {
  return location.pathname.replace(/^\/dashboard\/?/i, "").replace(/\/+$/, "");
}

// Links inside the app move without a reload (a modified click opens a new tab as usual).
document.addEventListener("click", (event) => {
  const link = (event.target as Element | null)?.closest?.("a[data-route]");
  if (!(link instanceof HTMLAnchorElement) || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(link.getAttribute("href") ?? "/dashboard/");
});
window.addEventListener("popstate", () => void show());

// ---- views -------------------------------------------------------------------------------------

void show();

async function show(): Promise<void> {
  const route = routeOfAddress();
  if (route === "welcome") return showWelcome();
  if (route === "sign-in") return showSignIn();
  if (!session) {
    try {
      session = await api.get<Session>("/session");
      api.csrfToken = session.csrf_token;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        navigate(href("/sign-in", next(route)), true);
        return;
      }
      return showFailure(error);
    }
  }
  // Until a required second factor is set up, the Security page is the only one.
  const enrolling = session.second_factor.enrolment_required;
  if (enrolling && route !== "security") return navigate(href("/security"), true);
  const pages = enrolling ? PAGES.filter((page) => page.path === "security") : PAGES.filter((page) => can(page.permission));
  const page = pages.find((p) => p.path === route);
  if (!page) {
    const first = pages[0];
    if (route === "" && first) return navigate(href(`/${first.path}`), true);
  }
  renderShell(pages, page ?? null);
  await renderPage(page ?? null);
}

/** Where sign-in leads back to: the page, and the object it showed (one transaction's id). */
const next = (route: string): Record<string, string> => {
  if (!route || route === "sign-in") return {};
  const id = new URLSearchParams(location.search).get("id");
  return id ? { next: route, id } : { next: route };
};
const can = (permission: DashboardPage["permission"]) => session?.permissions.includes(permission) ?? false;

function context(): PageContext {
  const mode = modeOfAddress();
  return {
    api,
    mode,
    session: session as Session,
    can,
    roleNote: (note) => (session?.merchant.active === false ? "" : note),
    href: (path, query) => href(path, query, mode),
    withMode: (path) => `${path}${path.includes("?") ? "&" : "?"}mode=${mode}`,
    navigate: (path) => navigate(path),
    announce,
  };
}

function announce(message: string): void {
  announcer.textContent = "";
  // A change after a clear, so a repeated message is read again.
  window.setTimeout(() => {
    announcer.textContent = message;
  }, 50);
}

/** Title, focus on the new heading, and an announcement: what a page load would have given. */
function arrived(title: string): void {
  document.title = `${title} · paygate dashboard`;
  if (firstView) {
    firstView = false;
    return;
  }
  const heading = main.querySelector("h1");
  if (heading) {
    heading.setAttribute("tabindex", "-1");
    heading.focus();
  } else main.focus();
  announce(title);
}

function renderShell(pages: DashboardPage[], current: DashboardPage | null): void {
  const s = session as Session;
  const mode = modeOfAddress();
  const path = current ? `/${current.path}` : `/${routeOfAddress()}`;
  document.body.classList.toggle("test-mode", mode === "test");
  banner.hidden = mode !== "test";
  replace(banner, h("strong", {}, "Test mode"), " · test data and test-network payments only; no real money moves");
  // A deactivated merchant's dashboard is read-only (the server refuses every change): say why the controls are gone.
  readOnlyBanner.hidden = s.merchant.active;
  replace(
    readOnlyBanner,
    h("strong", {}, "This merchant is deactivated"),
    " · the dashboard is read-only: you can see everything, but nothing can be changed until the operator of this service reactivates the merchant (",
    h("code", {}, `paygate merchant update ${s.merchant.id} --active true`),
    ").",
  );

  const modeSwitch = h(
    "div",
    { class: "mode-switch", role: "group", "aria-label": "Mode" },
    ...(["test", "live"] as const).map((m) =>
      h(
        "a",
        {
          href: m === mode ? `${location.pathname}${location.search}` : href(current?.modeSwitchTo ? `/${current.modeSwitchTo}` : path, {}, m),
          "data-route": "",
          class: `mode-${m}`,
          "aria-current": m === mode ? "true" : null,
        },
        m === "test" ? "Test" : "Live",
      ),
    ),
  );
  replace(
    top,
    h(
      "div",
      { class: "merchant" },
      h("p", { class: "merchant-name" }, s.merchant.name),
      h("p", { class: `kyb kyb-${s.merchant.kyb_status.toLowerCase()}` }, KYB_LABELS[s.merchant.kyb_status]),
    ),
    modeSwitch,
    h(
      "div",
      { class: "account" },
      h("p", {}, h("span", { class: "sr-only" }, "Signed in as "), s.user.email, ` (${s.role})`),
      // Both ways out side by side, with the account they end.
      h(
        "p",
        { class: "sign-out" },
        h("button", { type: "button", class: "link-button", onclick: () => void signOut("/session") }, "Sign out"),
        h("button", { type: "button", class: "link-button", onclick: () => void signOut("/sessions") }, "Sign out everywhere"),
      ),
    ),
  );
  top.hidden = false;

  replace(
    nav,
    h(
      "ul",
      {},
      ...pages
        .filter((page) => page.nav !== false)
        .map((page) =>
          h("li", {}, h("a", { href: href(`/${page.path}`), "data-route": "", "aria-current": page === current ? "page" : null }, page.title)),
        ),
    ),
  );
  nav.hidden = false;
}

async function renderPage(page: DashboardPage | null): Promise<void> {
  main.setAttribute("aria-busy", "true");
  if (!page) {
    replace(main, h("h1", {}, "Page not found"), h("p", {}, "This dashboard has no such page. Pick one from the navigation."));
    main.setAttribute("aria-busy", "false");
    return arrived("Page not found");
  }
  // Each render fills its own element: one left behind (the user went on while it waited for its data)
  // writes into an element no longer shown, however late its answer comes, and says nothing.
  const view = h("div", { class: "page" });
  replace(main, view);
  replace(view, h("h1", {}, page.title), h("p", { class: "loading" }, "Loading…"));
  try {
    await page.render(context(), view);
  } catch (error) {
    if (!view.isConnected) return;
    if (error instanceof ApiError && error.status === 401) {
      session = null;
      return navigate(href("/sign-in", next(page.path)), true);
    }
    replace(view, h("h1", {}, page.title), h("p", { class: "alert", role: "alert" }, messageOf(error)));
  } finally {
    if (view.isConnected) main.setAttribute("aria-busy", "false");
  }
  if (view.isConnected) arrived(page.title);
}

async function signOut(path: "/session" | "/sessions"): Promise<void> {
  try {
    await api.delete(path);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) {
      announce(messageOf(error));
      return;
    }
  }
  session = null;
  api.csrfToken = null;
  navigate(href("/sign-in", path === "/sessions" ? { signed_out: "everywhere" } : { signed_out: "1" }));
}

function bare(): void {
  top.hidden = true;
  nav.hidden = true;
  banner.hidden = true;
  readOnlyBanner.hidden = true;
  document.body.classList.remove("test-mode");
}

function showSignIn(): void {
  bare();
  const params = new URLSearchParams(location.search);
  const alert = h("div", { class: "alert-slot", role: "alert" });
  const email = h("input", { id: "email", name: "email", type: "email", autocomplete: "username", required: true, spellcheck: "false" });
  const password = h("input", { id: "password", name: "password", type: "password", autocomplete: "current-password", required: true });
  const submit = h("button", { type: "submit", class: "button" }, "Sign in");
  const form = h(
    "form",
    { class: "card auth", novalidate: true },
    h("div", { class: "field" }, h("label", { for: "email" }, "E-mail"), email),
    h("div", { class: "field" }, h("label", { for: "password" }, "Password"), password),
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void (async () => {
      if (!email.value || !password.value) {
        replace(alert, h("p", { class: "alert" }, "Enter your e-mail and your password"));
        return;
      }
      submit.disabled = true;
      try {
        const answer = await api.post<Session | SecondFactorChallenge>("/session", { email: email.value, password: password.value });
        if ("second_factor_required" in answer) return showSecondFactorStep(answer, params);
        signedIn(answer, params);
      } catch (error) {
        replace(alert, h("p", { class: "alert" }, messageOf(error)));
        password.value = "";
        password.focus();
      } finally {
        submit.disabled = false;
      }
    })();
  });
  const signedOut = params.get("signed_out");
  replace(
    main,
    h("h1", {}, "Sign in to your dashboard"),
    signedOut ? h("p", { class: "notice" }, signedOut === "everywhere" ? "You are signed out on every device." : "You are signed out.") : null,
    alert,
    form,
  );
  main.setAttribute("aria-busy", "false");
  arrived("Sign in");
  email.focus();
}

/** Signed in: back to the page sign-in was asked for (and the object it showed). */
function signedIn(answer: Session, params: URLSearchParams): void {
  session = answer;
  api.csrfToken = answer.csrf_token;
  const target = params.get("next");
  const id = params.get("id");
  const back = target && /^[a-z0-9-]+$/.test(target) ? `/${target}` : "/";
  navigate(href(back, id && /^[A-Za-z0-9_-]{1,100}$/.test(id) ? { id } : {}), true);
}

/** The sign-in's second step: the password was right, and the user has a second factor (an app's code, a security key, or either). */
function showSecondFactorStep(challenge: SecondFactorChallenge, params: URLSearchParams): void {
  const alert = h("div", { class: "alert-slot", role: "alert" });
  const withCode = challenge.methods.includes("totp");
  const withKey = challenge.methods.includes("security_key");
  const code = codeField("sign-in-code");
  const submit = h("button", { type: "submit", class: "button" }, "Verify");
  const form = h("form", { class: "card auth", novalidate: true }, code.field, submit);
  const keyButton = h("button", { type: "button", class: withCode ? "button secondary" : "button" }, "Use your security key");
  const steps = h("div", {}, withKey ? h("div", { class: "card auth" }, keyButton) : null, withCode ? form : null);
  /** Shows the failure; an ended challenge needs the password again. */
  const failed = (error: unknown) => {
    replace(alert, h("p", { class: "alert" }, messageOf(error)));
    if (error instanceof ApiError && error.reason === "sign_in_challenge_invalid")
      steps.replaceWith(h("p", {}, h("a", { href: "/dashboard/sign-in", "data-route": "" }, "Sign in again")));
  };
  keyButton.addEventListener("click", () => {
    void (async () => {
      replace(alert);
      keyButton.disabled = true;
      try {
        const body = { challenge_token: challenge.challenge_token };
        const securityKey = await assertKey(api, "/session/second-factor/security-key", body);
        signedIn(await api.post<Session>("/session/second-factor", { ...body, security_key: securityKey }), params);
      } catch (error) {
        failed(error);
        keyButton.focus();
      } finally {
        keyButton.disabled = false;
      }
    })();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void (async () => {
      if (!code.input.value.trim()) {
        replace(alert, h("p", { class: "alert" }, "Enter the code of your authenticator app, or a recovery code"));
        code.input.focus();
        return;
      }
      submit.disabled = true;
      try {
        signedIn(
          await api.post<Session>("/session/second-factor", { challenge_token: challenge.challenge_token, ...proofOf(code.input.value) }),
          params,
        );
      } catch (error) {
        failed(error);
        code.input.value = "";
        code.input.focus();
      } finally {
        submit.disabled = false;
      }
    })();
  });
  const about = [
    withKey ? "Use the security key you registered for this account (insert or touch it when your browser asks)." : "",
    withCode
      ? `${withKey ? "Or enter" : "Enter"} the 6-digit code your authenticator app shows for this account, or one of your recovery codes.`
      : "",
  ];
  replace(main, h("h1", {}, "Two-factor authentication"), h("p", {}, about.filter(Boolean).join(" ")), alert, steps);
  arrived("Two-factor authentication");
  (withCode ? code.input : keyButton).focus();
}

function showWelcome(): void {
  bare();
  // The token is in the fragment (never sent to a server); it leaves the address bar at once.
  const token = location.hash.slice(1);
  if (token) {
    sessionStorage.setItem("paygate-sign-in-link", token);
    history.replaceState(null, "", `${location.pathname}${location.search}`);
  }
  const stored = sessionStorage.getItem("paygate-sign-in-link");
  if (!stored) {
    replace(
      main,
      h("h1", {}, "This sign-in link is incomplete"),
      h("p", { class: "alert", role: "alert" }, "Open the whole link you were given, or ask an owner of your merchant for a new invitation."),
      h("p", {}, h("a", { href: "/dashboard/sign-in", "data-route": "" }, "Go to sign-in")),
    );
    main.setAttribute("aria-busy", "false");
    arrived("Sign-in link");
    return;
  }
  const alert = h("div", { class: "alert-slot", role: "alert" });
  const password = h("input", {
    id: "new-password",
    name: "password",
    type: "password",
    autocomplete: "new-password",
    required: true,
    minlength: "10",
    "aria-describedby": "password-hint",
  });
  const confirm = h("input", { id: "confirm-password", name: "confirm", type: "password", autocomplete: "new-password", required: true });
  const submit = h("button", { type: "submit", class: "button" }, "Set password and sign in");
  const form = h(
    "form",
    { class: "card auth", novalidate: true },
    h(
      "div",
      { class: "field" },
      h("label", { for: "new-password" }, "New password"),
      password,
      h("p", { class: "hint", id: "password-hint" }, "At least 10 characters."),
    ),
    h("div", { class: "field" }, h("label", { for: "confirm-password" }, "Repeat the password"), confirm),
    submit,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void (async () => {
      if (password.value !== confirm.value) {
        replace(alert, h("p", { class: "alert" }, "The two passwords differ; type the same password twice"));
        confirm.focus();
        return;
      }
      submit.disabled = true;
      try {
        session = await api.post<Session>(`/sign-in-links/${encodeURIComponent(stored)}`, { password: password.value });
        api.csrfToken = session.csrf_token;
        sessionStorage.removeItem("paygate-sign-in-link");
        navigate(href("/"), true);
      } catch (error) {
        replace(alert, h("p", { class: "alert" }, messageOf(error)));
        password.focus();
      } finally {
        submit.disabled = false;
      }
    })();
  });
  replace(main, h("h1", {}, "Welcome: set your password"), h("p", {}, "Choose the password you will sign in with from now on."), alert, form);
  main.setAttribute("aria-busy", "false");
  arrived("Set your password");
  password.focus();
}

function showFailure(error: unknown): void {
  bare();
  replace(main, h("h1", {}, "The dashboard could not load"), h("p", { class: "alert", role: "alert" }, messageOf(error)));
  main.setAttribute("aria-busy", "false");
  arrived("Dashboard unavailable");
}
