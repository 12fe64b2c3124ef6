// The store the db layer works on: the Prisma client generated from prisma/schema.prisma. The core
// imports nothing from here: it declares its records (src/core/records/rows.ts), and the stores hand it
// rows of that shape (the typecheck says when a column and its record part ways).
export type { PrismaClient as Database, Prisma, Transaction, WebhookDeliveryAttempt, PaymentReceipt } from "./generated/client.ts";
export type { TransactionStatus, KybStatus } from "./generated/enums.ts";
import type { Prisma } from "./generated/client.ts";
export type DatabaseTransaction = Prisma.TransactionClient;
