// A small reader of the Prometheus text exposition format (version 0.0.4), for the tests: families
// with their HELP and TYPE, and samples with their labels. Strict: a line it cannot read throws,
// so a malformed exposition fails the test instead of reading as "no such sample".

export type MetricType = "counter" | "gauge" | "histogram" | "summary" | "untyped";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string | undefined;
  type: MetricType | undefined;
  samples: Sample[];
}

export interface Exposition {
  families: Map<string, Family>;
  /** The value of the sample with exactly these labels, or undefined when there is none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** As value(), with 0 for a sample not (yet) exposed: counters appear at their first increment. */
  count(name: string, labels?: Record<string, string>): number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SUFFIXES = ["_bucket", "_sum", "_count", "_created", "_total"];

export function parseExposition(text: string): Exposition {
  const families = new Map<string, Family>();
  const family = (name: string): Family => {
    let found = families.get(name);
    if (!found) families.set(name, (found = { name, help: undefined, type: undefined, samples: [] }));
    return found;
  };
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name = "", rest = ""] = meta;
      if (!NAME.test(name)) throw new Error(`line ${index + 1}: bad metric name in ${JSON.stringify(line)}`);
      if (kind === "HELP") family(name).help = unescapeText(rest, false);
      else family(name).type = metricType(rest, index);
      continue;
    }
    if (line.startsWith("#")) continue;
    const sample = parseSample(line, index);
    family(familyOf(sample.name, families)).samples.push(sample);
  }

  const find = (name: string, labels: Record<string, string>) => {
    const wanted = Object.entries(labels);
    for (const f of families.values()) {
      for (const s of f.samples) {
        if (s.name !== name || Object.keys(s.labels).length !== wanted.length) continue;
        if (wanted.every(([k, v]) => s.labels[k] === v)) return s.value;
      }
    }
    return undefined;
  };
  return {
    families,
    value: (name, labels = {}) => find(name, labels),
    count: (name, labels = {}) => find(name, labels) ?? 0,
  };
}

function metricType(text: string, index: number): MetricType {
  if (text === "counter" || text === "gauge" || text === "histogram" || text === "summary" || text === "untyped") return text;
  throw new Error(`line ${index + 1}: unknown metric type ${JSON.stringify(text)}`);
}

/** The family a sample belongs to: its own name, or its name less a histogram/summary/counter suffix. */
function familyOf(sampleName: string, families: Map<string, Family>): string {
  if (families.has(sampleName)) return sampleName;
  for (const suffix of SUFFIXES) {
    if (sampleName.endsWith(suffix) && families.has(sampleName.slice(0, -suffix.length))) return sampleName.slice(0, -suffix.length);
  }
  return sampleName;
}

function parseSample(line: string, index: number): Sample {
  const fail = (why: string): never => {
    throw new Error(`line ${index + 1}: ${why} in ${JSON.stringify(line)}`);
  };
  const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (!nameMatch) return fail("no metric name");
  const name = nameMatch[0];
  let at = name.length;
  const labels: Record<string, string> = {};
  if (line[at] === "{") {
    at++;
    while (line[at] !== "}") {
      const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(at));
      if (!label) return fail("bad label");
      at += label[0].length;
      let raw = "";
      while (line[at] !== '"') {
        if (at >= line.length) return fail("unterminated label value");
        if (line[at] === "\\") raw += line[at++] ?? "";
        raw += line[at++] ?? "";
      }
      at++;
      labels[label[1] ?? ""] = unescapeText(raw, true);
      if (line[at] === ",") at++;
      else if (line[at] !== "}") return fail("expected , or }");
    }
    at++;
  }
  const rest = line.slice(at).trim().split(/\s+/);
  if (rest.length < 1 || rest.length > 2 || rest[0] === "") return fail("expected a value (and an optional timestamp)");
  return { name, labels, value: parseValue(rest[0] ?? "", fail) };
}

/** Prometheus reads values with Go's ParseFloat: NaN and Inf in any case (prom-client writes "Nan"). */
function parseValue(text: string, fail: (why: string) => never): number {
  const special = text.toLowerCase();
  if (special === "nan") return Number.NaN;
  if (special === "+inf" || special === "inf") return Number.POSITIVE_INFINITY;
  if (special === "-inf") return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  return Number.isNaN(value) ? fail(`bad value ${JSON.stringify(text)}`) : value;
}

/** Label values escape \\, \" and \n; HELP text escapes \\ and \n. */
function unescapeText(text: string, quotes: boolean): string {
  return text.replace(/\\(.)/g, (whole, char: string) => (char === "n" ? "\n" : char === "\\" ? "\\" : quotes && char === '"' ? '"' : whole));
}
