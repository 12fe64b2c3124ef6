// What the LTC end-to-end files do on their Litecoin Core regtest node: read the amount due, wait until
// the service's watch-only wallet holds an address, pay from a coinbase that a reorganisation can undo.
import { Decimal } from "decimal.js";
import { FUNDER, type Litecoind } from "../support/litecoind.ts";
import type { Transaction } from "./service.ts";

/** The amount due, exactly, from the payment URI (BIP21's amount=; the JSON number may round). */
export const amountOf = (t: Transaction) => new Decimal(new URL(t.payment_uri).searchParams.get("amount") ?? "NaN");

/**
 * Waits until the service's watch-only wallet (PAYGATE_NODE_WALLET) on the node holds the transaction's
 * address: initiate has it imported at once (the watcher's pass, if that failed), and a payment made
 * before that is found by the mempool read that follows the import (core-rpc.ts).
 */
export async function watchedBy(node: Litecoind, wallet: string, t: Transaction): Promise<Transaction> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const info = (await node.send("getaddressinfo", [t.payment_address], wallet).catch(() => null)) as { iswatchonly?: boolean } | null;
    if (info?.iswatchonly) return t;
    if (Date.now() > deadline) throw new Error(`the service's wallet ${wallet} does not watch ${t.payment_address}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A confirmed coin of the funder's of at least 1 LTC, to spend by hand (a double spend, a conflicting payment). */
export async function funderCoin(node: Litecoind): Promise<{ txid: string; vout: number; amount: number }> {
  const [coin] = (await node.send("listunspent", [1, 9_999_999, [], false, { minimumAmount: 1 }], FUNDER)) as {
    txid: string;
    vout: number;
    amount: number;
  }[];
  if (!coin) throw new Error("the funder has no coin of 1 LTC or more");
  return coin;
}

/**
 * Pays `amount` to `address` from a coinbase that has just matured, unconfirmed; `maturing` is the block
 * that matured it: once that block is invalidated, the payment is invalid and leaves the node for good.
 */
export async function payFromFreshCoinbase(node: Litecoind, address: string, amount: Decimal): Promise<{ txid: string; maturing: string }> {
  const [coinbaseBlock] = await node.mine(1);
  const maturing = (await node.mine(99)).at(-1) as string;
  const block = (await node.send("getblock", [coinbaseBlock, 2])) as { tx: { txid: string; vout: { value: number }[] }[] };
  const coinbase = block.tx[0] as { txid: string; vout: { value: number }[] };
  const change = new Decimal((coinbase.vout[0] as { value: number }).value).minus(amount).minus("0.001").toFixed(8);
  const raw = await node.send("createrawtransaction", [
    [{ txid: coinbase.txid, vout: 0 }],
    { [address]: amount.toFixed(8), [await node.newAddress()]: change },
  ]);
  const signed = (await node.send("signrawtransactionwithwallet", [raw], FUNDER)) as { hex: string };
  return { txid: String(await node.send("sendrawtransaction", [signed.hex])), maturing };
}
