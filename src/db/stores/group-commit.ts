// Group commit for the hot writes (issue 47): on a busy instance the requests that arrive while
// `inFlight` statements of their kind are under way are written together by the next one, one
// statement, one round trip and one commit for several requests, each still answered on its own. An
// idle instance waits for nothing: a request that finds a slot free goes at once, alone.
//
// A group is one statement. When the database refuses it for anything but an outage (a row a
// foreign key refuses, two requests racing for one address), each of its requests goes again
// alone, one after the other, so only the one refused hears the refusal; an outage fails them all
// (503), as it would have failed each alone.
import { isDatabaseOutage } from "../../core/errors.ts";

export interface GroupCommitOptions {
  /** Statements under way at once; requests beyond them wait for the next group. */
  inFlight: number;
  /** The most requests one statement writes. */
  maxGroup: number;
  /**
   * How long requests wait for a statement slot before they go anyway (outside the `inFlight` count):
   * statements that never end (a lock held elsewhere) must not hold every request behind them.
   */
  waitMs: number;
}

/**
 * One statement at a time: a request waits for at most one commit before its own, and groups are as
 * large as the load makes them (two at a time gave PostgreSQL a quarter more CPU per initialize).
 */
export const GROUP_COMMIT: GroupCommitOptions = { inFlight: 1, maxGroup: 32, waitMs: 5_000 };

export interface GroupCommit<Item, Result> {
  /** Resolves with the item's own result once its statement (alone or with others) has committed. */
  write(item: Item): Promise<Result>;
}

interface Pending<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/**
 * `alone` writes one item in its own statement; `together` writes several in one and answers their
 * results in their order.
 */
export function groupCommit<Item, Result>(
  alone: (item: Item) => Promise<Result>,
  together: (items: Item[]) => Promise<Result[]>,
  options: GroupCommitOptions = GROUP_COMMIT,
): GroupCommit<Item, Result> {
  let waiting: Pending<Item, Result>[] = [];
  let inFlight = 0;
  let overdue: NodeJS.Timeout | null = null;

  function start(group: Pending<Item, Result>[], counted: boolean): void {
    if (counted) inFlight += 1;
    void run(group).finally(() => {
      if (counted) inFlight -= 1;
      pump();
    });
  }

  function pump(): void {
    while (waiting.length > 0 && inFlight < options.inFlight) start(take(), true);
    if (waiting.length === 0 && overdue) {
      clearTimeout(overdue);
      overdue = null;
    }
  }

  function take(): Pending<Item, Result>[] {
    if (waiting.length <= options.maxGroup) {
      const group = waiting;
      waiting = [];
      return group;
    }
    const group = waiting.slice(0, options.maxGroup);
    waiting = waiting.slice(options.maxGroup);
    return group;
  }

  /** The slots stayed taken for waitMs: what waits goes now, beside them. */
  function goAnyway(): void {
    overdue = null;
    while (waiting.length > 0) start(take(), false);
  }

  async function run(group: Pending<Item, Result>[]): Promise<void> {
    if (group.length === 1) {
      const [only] = group as [Pending<Item, Result>];
      return alone(only.item).then(only.resolve, only.reject);
    }
    let results: Result[];
    try {
      results = await together(group.map((p) => p.item));
    } catch (error) {
      if (isDatabaseOutage(error)) {
        for (const p of group) p.reject(error);
        return;
      }
      // Nothing of the group was written: each goes again alone and hears its own answer, one after
      // the other, in arrival order. Side by side they would race each other again (two moves of one
      // address would both pass the check that it is free, and the second would meet the unique index).
      for (const p of group) await alone(p.item).then(p.resolve, p.reject);
      return;
    }
    for (const [i, p] of group.entries()) p.resolve(results[i] as Result);
  }

  return {
    write(item) {
      return new Promise<Result>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        pump();
        if (waiting.length > 0 && !overdue) overdue = setTimeout(goAnyway, options.waitMs).unref();
      });
    },
  };
}
