// Decimal (exact, as a string), DateTime (ISO 8601 UTC) and JSON (an object).
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from "graphql";

const badInput = (message: string) => new GraphQLError(message, { extensions: { code: "BAD_USER_INPUT" } });

export const DecimalScalar = new GraphQLScalarType<string, string>({
  name: "Decimal",
  // Amounts leave as strings so no client turns them into binary floats.
  serialize: (value) => String(value),
  // Accepted as any string; the core checks the number and answers with its own message.
  parseValue: (value) => {
    if (typeof value !== "string") throw badInput('Decimal values are strings, such as "100.50"');
    return value;
  },
  parseLiteral: (node) => {
    if (node.kind !== Kind.STRING) throw badInput('Decimal values are strings, such as "100.50"');
    return node.value;
  },
});

export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: "DateTime",
  serialize: (value) => (value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString()),
  parseValue: () => {
    throw badInput("DateTime is output only");
  },
});

function literalToJson(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, literalToJson(f.value)]));
    case Kind.LIST:
      return node.values.map(literalToJson);
    case Kind.STRING:
    case Kind.BOOLEAN:
    case Kind.ENUM:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    default:
      throw badInput("JSON literals cannot hold variables");
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Input passes through: the core checks it, so REST and GraphQL refuse the same values with the same message. */
export const JSONScalar = new GraphQLScalarType<unknown, Record<string, unknown>>({
  name: "JSON",
  serialize: (value) => (isObject(value) ? value : {}),
  parseValue: (value) => value,
  parseLiteral: (node) => literalToJson(node),
});
