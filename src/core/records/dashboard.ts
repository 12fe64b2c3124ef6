// The roles a dashboard user can hold, as stored with the user (access/roles.ts says what each may do).
export const DASHBOARD_ROLES = ["owner", "developer", "viewer"] as const;
export type DashboardRole = (typeof DASHBOARD_ROLES)[number];
