// The store the db layer works on: the Prisma client generated from prisma/schema.prisma. The core
// imports only types from here (its row types); its queries live in src/db (src/db/stores.ts).
export type { PrismaClient as Database, Prisma, Transaction, WebhookEvent, WebhookDeliveryAttempt, PaymentReceipt } from "./generated/client.ts";
export type { TransactionStatus, KybStatus } from "./generated/enums.ts";
import type { Prisma } from "./generated/client.ts";
export type DatabaseTransaction = Prisma.TransactionClient;
