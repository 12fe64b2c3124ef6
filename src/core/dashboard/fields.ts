// The checks of what a dashboard user is made of: an e-mail, a role, a password. Each refusal names
// its field and what to send instead.
import { errors, type FieldError } from "../errors.ts";
import { isDashboardRole } from "../access/roles.ts";
import { DASHBOARD_ROLES, type DashboardRole } from "../records/dashboard.ts";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./passwords.ts";

/** A plain e-mail form: something@domain.tld, no spaces; lower-cased, at most 254 characters. */
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

export function normalEmail(value: unknown, field = "email"): string {
  if (typeof value !== "string" || value.trim() === "")
    throw errors.invalidDashboardUser([{ field, message: "is required: the user's e-mail address" }]);
  const email = value.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email))
    throw errors.invalidDashboardUser([{ field, message: "is not an e-mail address (name@example.com)" }]);
  return email;
}

export function checkRole(value: unknown, field = "role"): DashboardRole {
  if (typeof value === "string" && isDashboardRole(value)) return value;
  throw errors.invalidDashboardUser([{ field, message: `must be one of ${DASHBOARD_ROLES.join(", ")}` }]);
}

export function checkPassword(value: unknown, field = "password"): string {
  const problem: FieldError | null =
    typeof value !== "string"
      ? { field, message: `is required: a text of at least ${MIN_PASSWORD_LENGTH} characters` }
      : [...value].length < MIN_PASSWORD_LENGTH
        ? { field, message: `is too short: use at least ${MIN_PASSWORD_LENGTH} characters` }
        : [...value].length > MAX_PASSWORD_LENGTH
          ? { field, message: `is too long: use at most ${MAX_PASSWORD_LENGTH} characters` }
          : null;
  if (problem) throw errors.invalidDashboardUser([problem]);
  return value as string;
}
