// The store the core works on: the Prisma client generated from prisma/schema.prisma.
export type { PrismaClient as Database, Prisma } from "./generated/client.ts";
export type { TransactionStatus, KybStatus } from "./generated/enums.ts";
import type { Prisma } from "./generated/client.ts";
export type DatabaseTransaction = Prisma.TransactionClient;
