// Which statements a PostgreSQL connection keeps prepared (@prisma/adapter-pg's statementNameGenerator).
//
// Unnamed, every statement is parsed, analysed and planned by the server each time it runs: for the
// hot paths' one-statement writes (initialize, initiate's read-and-lease and move), whose WITH steps
// take longer to plan than to run, that was about a third of PostgreSQL's CPU per initiate
// (docs/benchmarks.md). Named, the driver parses it once per connection and the server keeps its plan.
// Named statements live as long as their connection, so only texts seen a few times are named
// (a text built once, e.g. with a list of ids, never is), and only so many: the rest run unnamed.
import { LRUCache } from "lru-cache";

/** PAYGATE_DB_PREPARED_STATEMENTS' default: above the few dozen statement texts the service runs again and again. */
export const DEFAULT_PREPARED_STATEMENTS = 100;

export interface PreparedStatementOptions {
  /** How many statement texts get a name, at most; 0 names none. */
  limit: number;
  /** A text gets its name the time it is seen this often (3: once it is clearly not one of a kind). */
  threshold?: number;
}

/** Gives a statement's text its name once the text has been seen `threshold` times, until `limit` names are given. */
export function statementNamer(options: PreparedStatementOptions): (text: string) => string | undefined {
  const threshold = Math.max(1, options.threshold ?? 3);
  const names = new Map<string, string>();
  // Sightings of texts without a name yet; the least recently seen go first.
  const sightings = new LRUCache<string, number>({ max: 1000 });
  return (text) => {
    const name = names.get(text);
    if (name !== undefined || names.size >= options.limit) return name;
    const seen = (sightings.get(text) ?? 0) + 1;
    if (seen < threshold) {
      sightings.set(text, seen);
      return undefined;
    }
    sightings.delete(text);
    const given = `paygate_${names.size + 1}`;
    names.set(text, given);
    return given;
  };
}
