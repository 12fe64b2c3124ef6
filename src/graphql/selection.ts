// What a query selects below a field, read from its resolver's info: the resolvers leave out of the
// core's read what no field asks for (a poll without receipts reads none).
import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from "graphql";

/** Whether a field named `name` is selected anywhere below the resolved field (fragments included). */
export function selectsBelow(info: Pick<GraphQLResolveInfo, "fieldNodes" | "fragments">, name: string): boolean {
  const seen = new Set<string>();
  const within = (set: SelectionSetNode | undefined): boolean =>
    (set?.selections ?? []).some((selection) => {
      if (selection.kind === Kind.FIELD) return selection.name.value === name || within(selection.selectionSet);
      if (selection.kind === Kind.INLINE_FRAGMENT) return within(selection.selectionSet);
      const fragment = selection.name.value;
      if (seen.has(fragment)) return false;
      seen.add(fragment);
      return within(info.fragments[fragment]?.selectionSet);
    });
  return info.fieldNodes.some((node) => within(node.selectionSet));
}
