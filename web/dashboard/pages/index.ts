// The dashboard's pages, in the order of the navigation. Adding a page is one line here (and its
// module in this folder); the navigation shows only pages that exist and the role may read.
import type { DashboardPage } from "../context.ts";
import { renderUsers } from "./users.ts";

export const PAGES: DashboardPage[] = [{ path: "users", title: "Users", permission: "read", render: renderUsers }];
