// JSON with its numbers kept as the text the server sent. JSON.parse turns 65000.12345678901 into
// the nearest binary float, and the reviver that would show the source text arrives only in
// Node 21; so this small strict parser (RFC 8259) stands in where a provider sends prices as JSON
// numbers. Objects become Maps, so a key such as "__proto__" is only ever data.

/** A JSON number as written in the body, e.g. "65000.12345678" or "1.5e-7". */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type ExactJson = null | boolean | string | JsonNumber | ExactJson[] | ExactObject;
export type ExactObject = Map<string, ExactJson>;

const MAX_DEPTH = 64;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const WHITESPACE = /[ \t\n\r]*/y;
const LITERALS: readonly [string, ExactJson][] = [
  ["true", true],
  ["false", false],
  ["null", null],
];

/** Parses `text` as one JSON value; throws SyntaxError naming the position of the first problem. */
export function parseExactJson(text: string): ExactJson {
  let at = 0;

  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at position ${at} of the JSON body`);
  };
  const skipWhitespace = () => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.exec(text);
    at = WHITESPACE.lastIndex;
  };
  const match = (pattern: RegExp): string | null => {
    pattern.lastIndex = at;
    const found = pattern.exec(text);
    if (!found) return null;
    at = pattern.lastIndex;
    return found[0];
  };

  const value = (depth: number): ExactJson => {
    if (depth > MAX_DEPTH) fail("JSON nested too deeply");
    skipWhitespace();
    const c = text[at];
    if (c === "{") return object(depth);
    if (c === "[") return array(depth);
    if (c === '"') return string();
    for (const [word, literal] of LITERALS) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return literal;
      }
    }
    const number = match(NUMBER);
    if (number !== null) return new JsonNumber(number);
    return fail(c === undefined ? "Unexpected end" : `Unexpected ${JSON.stringify(c)}`);
  };

  const string = (): string => {
    const token = match(STRING);
    if (token === null) return fail("Malformed string");
    // The token is a complete, valid JSON string: let JSON.parse decode its escapes.
    return JSON.parse(token) as string;
  };

  const object = (depth: number): ExactObject => {
    const out: ExactObject = new Map();
    at++; // {
    skipWhitespace();
    if (text[at] === "}") {
      at++;
      return out;
    }
    for (;;) {
      skipWhitespace();
      if (text[at] !== '"') fail("Expected a string key");
      const key = string();
      skipWhitespace();
      if (text[at] !== ":") fail("Expected ':'");
      at++;
      out.set(key, value(depth + 1));
      skipWhitespace();
      if (text[at] === ",") {
        at++;
        continue;
      }
      if (text[at] === "}") {
        at++;
        return out;
      }
      fail("Expected ',' or '}'");
    }
  };

  const array = (depth: number): ExactJson[] => {
    const out: ExactJson[] = [];
    at++; // [
    skipWhitespace();
    if (text[at] === "]") {
      at++;
      return out;
    }
    for (;;) {
      out.push(value(depth + 1));
      skipWhitespace();
      if (text[at] === ",") {
        at++;
        continue;
      }
      if (text[at] === "]") {
        at++;
        return out;
      }
      fail("Expected ',' or ']'");
    }
  };

  const result = value(0);
  skipWhitespace();
  if (at !== text.length) fail("Unexpected text after the JSON value");
  return result;
}

export function isExactObject(value: ExactJson | undefined): value is ExactObject {
  return value instanceof Map;
}
