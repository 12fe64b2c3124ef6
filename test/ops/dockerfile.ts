// Just enough of a Dockerfile reader for the tests (no container runtime here): instructions with
// their continuation lines joined, grouped by stage.
import { readFileSync } from "node:fs";

export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  /** The `AS` name, or the index as a string. */
  name: string;
  from: string;
  instructions: Instruction[];
}

export function readDockerfile(file = "Dockerfile"): Stage[] {
  return parseDockerfile(readFileSync(file, "utf8"));
}

export function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (pending === "" && (line.trim() === "" || line.trimStart().startsWith("#"))) continue;
    if (pending !== "" && line.trimStart().startsWith("#")) continue; // a comment inside a continued instruction
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    logical.push((pending + line.trim()).trim());
    pending = "";
  }
  if (pending) logical.push(pending.trim());

  const stages: Stage[] = [];
  for (const line of logical) {
    const match = /^(\w+)\s*(.*)$/.exec(line);
    if (!match) continue;
    const keyword = (match[1] ?? "").toUpperCase();
    const args = match[2] ?? "";
    if (keyword === "FROM") {
      const from = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(args);
      stages.push({ name: from?.[2] ?? String(stages.length), from: from?.[1] ?? "", instructions: [] });
      continue;
    }
    stages.at(-1)?.instructions.push({ keyword, args });
  }
  return stages;
}

/** The arguments of every `keyword` instruction of a stage. */
export function argsOf(stage: Stage, keyword: string): string[] {
  return stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
}

/** An exec-form (JSON array) argument list, or null for the shell form. */
export function execForm(args: string): string[] | null {
  try {
    const parsed: unknown = JSON.parse(args);
    return Array.isArray(parsed) && parsed.every((a) => typeof a === "string") ? (parsed as string[]) : null;
  } catch {
    return null;
  }
}
