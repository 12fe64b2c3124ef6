// The dashboard's pages, in the order of the navigation. Adding a page is one line here (and its
// module in this folder); the navigation shows only pages that exist and the role may read.
import type { DashboardPage } from "../context.ts";
import { renderTransaction } from "./transaction.ts";
import { renderTransactions } from "./transactions.ts";
import { renderUsers } from "./users.ts";

export const PAGES: DashboardPage[] = [
  { path: "transactions", title: "Transactions", permission: "read", render: renderTransactions },
  { path: "transaction", title: "Transaction", permission: "read", render: renderTransaction, nav: false },
  { path: "users", title: "Users", permission: "read", render: renderUsers },
];
