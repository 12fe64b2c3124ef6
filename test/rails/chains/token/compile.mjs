// Compiles TestToken.sol into TestToken.json (ABI, creation and runtime bytecode per contract), so
// the tests need no compiler. Run from the repository root, when the source changes:
//   node test/rails/chains/token/compile.mjs
// It calls solc-js through npx at the version below (not a dependency of the project); the same
// version, settings and source give the same bytecode.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const SOLC = "solc@0.8.37";
const here = new URL(".", import.meta.url);
const settings = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
};
const input = {
  language: "Solidity",
  sources: { "TestToken.sol": { content: readFileSync(new URL("TestToken.sol", here), "utf8") } },
  settings,
};
// solcjs prints a notice about SMT solvers before the JSON.
const printed = execFileSync("npx", ["-y", SOLC, "--standard-json"], { input: JSON.stringify(input), encoding: "utf8" });
const output = JSON.parse(printed.slice(printed.indexOf("{")));
const errors = (output.errors ?? []).filter((e) => e.severity === "error");
if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
const version = execFileSync("npx", ["-y", SOLC, "--version"], { encoding: "utf8" }).trim();

const contracts = {};
for (const [name, c] of Object.entries(output.contracts["TestToken.sol"])) {
  if (c.evm.bytecode.object === "") continue; // the abstract base
  contracts[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: `0x${c.evm.deployedBytecode.object}` };
}
const compiledWith = {
  command: "node test/rails/chains/token/compile.mjs",
  solc: version,
  settings: { optimizer: settings.optimizer, evmVersion: settings.evmVersion },
};
writeFileSync(new URL("TestToken.json", here), `${JSON.stringify({ compiledWith, contracts }, null, 2)}\n`);
console.log(`TestToken.json: ${Object.keys(contracts).join(", ")} (${version})`);
