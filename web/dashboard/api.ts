// The dashboard's JSON API (/dashboard/api) from its page: the session cookie travels by itself
// (same origin), every change carries the session's CSRF token, and failures come back as ApiError
// (the service's message, reason and field problems) or NetworkError (no answer at all).
import { ApiError, NetworkError } from "../shared/graphql.ts";

export { ApiError, NetworkError };

export type Mode = "test" | "live";
export type Role = "owner" | "developer" | "viewer";
export type Permission = "read" | "manage_keys" | "manage_webhooks" | "manage_wallets" | "manage_payment_links" | "manage_users";

/** GET /dashboard/api/session. */
export interface Session {
  user: { id: string; email: string; role: Role };
  merchant: { id: number; name: string; kyb_status: "NONE" | "PENDING" | "VERIFIED" | "REJECTED"; active: boolean };
  role: Role;
  permissions: Permission[];
  csrf_token: string;
  expires_at: string;
}

const BASE = "/dashboard/api";

export class DashboardApi {
  /** Set once signed in: every change sends it. */
  csrfToken: string | null = null;

  get<T>(path: string): Promise<T> {
    return this.request<T>("GET", path);
  }
  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.request<T>("POST", path, body);
  }
  patch<T>(path: string, body: unknown = {}): Promise<T> {
    return this.request<T>("PATCH", path, body);
  }
  delete<T>(path: string): Promise<T> {
    return this.request<T>("DELETE", path);
  }

  /** `data` of the answer; throws ApiError or NetworkError. */
  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
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
