// `npm run contracts:build`: compiles the Solidity sources of src/rails/evm/contracts/ with solc-js
// (the devDependency `solc`, pinned) into a JSON file beside each source: every contract's ABI,
// creation bytecode and runtime bytecode, and how they were compiled. The same version, settings and
// source give the same bytecode: test/rails/evm/contracts-build.test.ts recompiles and compares, so
// neither the source nor the committed bytecode changes without the other.
// `--check`: compiles and compares without writing; exits 1 when a committed file differs.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export const CONTRACTS_DIR = new URL("../src/rails/evm/contracts/", import.meta.url);
/** Each source and the JSON file written beside it. */
export const SOURCES = { "Forwarders.sol": "Forwarders.json", "TestTokens.sol": "TestTokens.json" } as const;

const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  outputSelection: {
    "*": { "": ["ast"], "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object", "evm.deployedBytecode.immutableReferences"] },
  },
};

interface Solc {
  compile(input: string): string;
  version(): string;
}

/** Where an immutable's 32-byte value sits in the runtime code (bytes). */
interface CodeRange {
  start: number;
  length: number;
}

interface CompiledContract {
  abi: unknown[];
  evm: { bytecode: { object: string }; deployedBytecode: { object: string; immutableReferences?: Record<string, CodeRange[]> } };
}

interface AstNode {
  id?: number;
  nodeType?: string;
  name?: string;
  mutability?: string;
  nodes?: AstNode[];
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  sources?: Record<string, { ast: AstNode }>;
  contracts?: Record<string, Record<string, CompiledContract>>;
}

/** The names of a source's immutables by AST id: solc places them in the runtime code by id, not name. */
function immutableNames(ast: AstNode | undefined): Map<string, string> {
  const names = new Map<string, string>();
  const visit = (node: AstNode) => {
    if (node.nodeType === "VariableDeclaration" && node.mutability === "immutable" && node.id !== undefined && node.name)
      names.set(String(node.id), node.name);
    for (const child of node.nodes ?? []) visit(child);
  };
  if (ast) visit(ast);
  return names;
}

/** What each JSON file holds, as text: the files to write, by name. */
export function compileContracts(): Map<string, string> {
  const solc = createRequire(import.meta.url)("solc") as Solc;
  const sources = Object.fromEntries(Object.keys(SOURCES).map((name) => [name, { content: readFileSync(new URL(name, CONTRACTS_DIR), "utf8") }]));
  const output = JSON.parse(solc.compile(JSON.stringify({ language: "Solidity", sources, settings: SETTINGS }))) as SolcOutput;
  const problems = output.errors ?? [];
  // A warning fails the build too: the contracts are small enough to have none.
  if (problems.length > 0) throw new Error(problems.map((e) => e.formattedMessage).join("\n"));
  const files = new Map<string, string>();
  for (const [source, file] of Object.entries(SOURCES)) {
    const names = immutableNames(output.sources?.[source]?.ast);
    const contracts: Record<string, { abi: unknown[]; bytecode: string; deployedBytecode: string; immutables?: Record<string, CodeRange[]> }> = {};
    for (const [name, c] of Object.entries(output.contracts?.[source] ?? {})) {
      if (c.evm.bytecode.object === "") continue; // an abstract base
      const references = Object.entries(c.evm.deployedBytecode.immutableReferences ?? {});
      // The runtime code holds zeros where its immutables go: these ranges say where, so a deployed contract's code can be checked.
      const immutables = Object.fromEntries(references.map(([id, ranges]) => [names.get(id) ?? id, ranges]));
      contracts[name] = {
        abi: c.abi,
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
        ...(references.length > 0 ? { immutables } : {}),
      };
    }
    const compiledWith = {
      command: "npm run contracts:build",
      solc: solc.version(),
      settings: { optimizer: SETTINGS.optimizer, evmVersion: SETTINGS.evmVersion },
    };
    files.set(file, `${JSON.stringify({ source, compiledWith, contracts }, null, 2)}\n`);
  }
  return files;
}

/** The files whose committed text differs from a fresh compilation. */
export function staleFiles(files: Map<string, string>): string[] {
  return [...files].filter(([file, text]) => readFileSync(new URL(file, CONTRACTS_DIR), "utf8") !== text).map(([file]) => file);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = compileContracts();
  if (process.argv.includes("--check")) {
    const stale = staleFiles(files);
    if (stale.length > 0) {
      console.error(`stale: ${stale.join(", ")} (run npm run contracts:build and commit the result)`);
      process.exit(1);
    }
    console.log("contracts: the committed bytecode matches the sources");
  } else {
    for (const [file, text] of files) writeFileSync(new URL(file, CONTRACTS_DIR), text);
    console.log(`contracts: wrote ${[...files.keys()].join(", ")}`);
  }
}
