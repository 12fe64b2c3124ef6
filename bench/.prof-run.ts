import { startTestGateway } from "../test/support/gateway.ts";
const t = await startTestGateway();
const keys = await t.merchant({ name: "Prof" });
const ids: string[] = [];
await Promise.all(
  Array.from({ length: 10 }, async () => {
    for (let i = 0; i < 80; i++) {
      const r = await t.post(
        "/v1/transaction",
        { customer: { email: "a@example.com" }, currency: "USD", amount: "10" },
        { authorization: `Bearer ${keys.testPublicKey}` },
      );
      ids.push(r.body.data.id);
    }
  }),
);
const start = performance.now();
let n = 0;
await Promise.all(
  Array.from({ length: 10 }, async () => {
    for (;;) {
      const id = ids.pop();
      if (!id) return;
      const r = await t.post(`/v1/transaction/${id}/pay`, { currency_id: "4" }, { authorization: `Bearer ${keys.testSecretKey}` });
      if (r.status !== 200) throw new Error(String(r.status));
      n++;
    }
  }),
);
console.log("initiates/s", n / ((performance.now() - start) / 1000));
await t.close();
