// What every page of the dashboard is given: the API client (with the CSRF header), the mode of
// the address (`?mode=test|live`), the signed-in session and its permissions, and the helpers to
// link and announce. A page is a module of pages/ exporting one render function (pages/index.ts).
import type { DashboardApi, Mode, Permission, Session } from "./api.ts";

export interface PageContext {
  api: DashboardApi;
  mode: Mode;
  session: Session;
  /** Whether the user's role allows it, and the merchant is active (the server checks again on every change). */
  can(permission: Permission): boolean;
  /** A page's note on why its controls are missing: the role's, or none for a deactivated merchant (the banner above every page says why). */
  roleNote(note: string): string;
  /** A dashboard address with the current mode kept: href("/users") → "/dashboard/users?mode=live". */
  href(path: string, query?: Record<string, string>): string;
  /** An API path with the current mode: withMode("/transactions") → "/transactions?mode=test". */
  withMode(path: string): string;
  /** Moves to another dashboard page without a reload. */
  navigate(path: string): void;
  /** Says something to screen readers (a polite live region). */
  announce(message: string): void;
}

/** One page: its path under /dashboard/, its title (the nav and the document title), and what it needs. */
export interface DashboardPage {
  path: string;
  title: string;
  /** Pages are shown to every role with this permission ("read": everyone). */
  permission: Permission;
  /** False for a page reached from another (one transaction): not listed in the navigation. */
  nav?: boolean;
  /** Where the mode switch leads from this page: one transaction exists in one mode only, so its list. */
  modeSwitchTo?: string;
  /**
   * Fills `main`, this render's own element inside the page's <main> (its <h1> first: focus goes to it
   * after navigation). A render the user has left writes into an element no longer shown.
   */
  render(ctx: PageContext, main: HTMLElement): void | Promise<void>;
}
