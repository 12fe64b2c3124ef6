// A database client whose raw queries (the hot statements' path, src/db/direct-sql.ts) are counted,
// and made to fail while `failing` is set and to hang while `hanging` is: for the stores that
// group their statements (the rate-limit counters).
import type { Database } from "../../src/db/types.ts";

export function countedClient(db: Database) {
  const state = { statements: 0, failing: false, hanging: false };
  const client = new Proxy(db, {
    get(target, property, receiver) {
      if (property === "$queryRaw") {
        return (...args: Parameters<Database["$queryRaw"]>) => {
          state.statements += 1;
          if (state.failing) return Promise.reject(new Error("the database went away"));
          if (state.hanging) return new Promise(() => {});
          return target.$queryRaw(...args);
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
  return { client, state };
}
