// The dashboard's JSON API (/dashboard/api) from its page: the session cookie travels by itself
// (same origin), every change carries the session's CSRF token, and failures come back as ApiError
// (the service's message, reason and field problems) or NetworkError (no answer at all).
import type { DashboardPermission } from "../../src/core/access/roles.ts";
import type { DashboardRole } from "../../src/core/records/dashboard.ts";
import { ApiError, NetworkError } from "../shared/graphql.ts";

export { ApiError, NetworkError };

export type Mode = "test" | "live";
// The core's own lists (type-only: nothing of the core is bundled), so a new role or permission reaches the pages.
export type Role = DashboardRole;
export type Permission = DashboardPermission;

/** GET /dashboard/api/session. */
export interface Session {
  user: { id: string; email: string; role: Role };
  merchant: { id: number; name: string; kyb_status: "NONE" | "PENDING" | "VERIFIED" | "REJECTED"; active: boolean };
  role: Role;
  permissions: Permission[];
  csrf_token: string;
  expires_at: string;
  /** `enabled`: an authenticator app or a security key (or both). */
  second_factor: { enabled: boolean; enrolment_required: boolean; authenticator_app: boolean; security_keys: number };
  /** Sensitive changes after this ask for the password again (sudo mode). */
  reauthenticate_after: string;
}

/** POST /dashboard/api/session's answer for a user with a second factor: no session yet. */
export interface SecondFactorChallenge {
  second_factor_required: true;
  challenge_token: string;
  expires_at: string;
  /** What the challenge can be answered with. */
  methods: ("totp" | "recovery_code" | "security_key")[];
}

const BASE = "/dashboard/api";

export class DashboardApi {
  /** Set once signed in: every change sends it. */
  csrfToken: string | null = null;
  /** Asked when a change needs the password again (sudo mode): true once it was proved, and the change is sent again. */
  onReauthenticationRequired: (() => Promise<boolean>) | null = null;
  /** Told when the service requires a second factor before anything else. */
  onEnrolmentRequired: (() => void) | null = null;

  get<T>(path: string): Promise<T> {
    return this.request<T>("GET", path);
  }
  /** `headers`: added to the request's own (an Idempotency-Key, say). */
  post<T>(path: string, body: unknown = {}, headers: Record<string, string> = {}): Promise<T> {
    return this.request<T>("POST", path, body, headers);
  }
  patch<T>(path: string, body: unknown = {}): Promise<T> {
    return this.request<T>("PATCH", path, body);
  }
  delete<T>(path: string): Promise<T> {
    return this.request<T>("DELETE", path);
  }

  /** `data` of the answer; throws ApiError or NetworkError. A change refused for an old sign-in is retried once re-authenticated. */
  async request<T>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<T> {
    try {
      return await this.send<T>(method, path, body, extra);
    } catch (error) {
      if (error instanceof ApiError && error.reason === "reauthentication_required" && (await this.onReauthenticationRequired?.())) {
        return this.send<T>(method, path, body, extra);
      }
      if (error instanceof ApiError && error.reason === "second_factor_enrolment_required") this.onEnrolmentRequired?.();
      throw error;
    }
  }

  private async send<T>(method: string, path: string, body: unknown, extra: Record<string, string>): Promise<T> {
    const headers: Record<string, string> = { ...extra, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (method !== "GET" && this.csrfToken) headers["x-csrf-token"] = this.csrfToken;
    let response: Response;
    try {
      response = await fetch(BASE + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: "same-origin",
      });
    } catch {
      throw new NetworkError("The dashboard could not reach the payment service; check your connection and try again");
    }
    const parsed = (await response.json().catch(() => null)) as {
      data?: T;
      message?: string;
      code?: string;
      reason?: string;
      errors?: { field: string; message: string }[];
    } | null;
    if (!response.ok) {
      throw new ApiError(
        parsed?.message ?? `The service answered ${response.status}`,
        parsed?.code ?? "error",
        response.status,
        parsed?.reason ?? null,
        parsed?.errors ?? [],
      );
    }
    return parsed?.data as T;
  }
}

/** What to tell the user about a failure. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError || error instanceof NetworkError) return error.message;
  return "Something went wrong; reload the page and try again";
}
