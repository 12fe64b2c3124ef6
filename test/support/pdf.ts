// A PDF's text as Poppler's pdftotext reads it (Debian's poppler-utils), runs of spaces made one.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export async function pdfToText(bytes: Buffer | Uint8Array, options: { layout?: boolean } = {}): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "paygate-pdf-"));
  try {
    const file = path.join(dir, "document.pdf");
    await writeFile(file, bytes);
    const { stdout } = await run("pdftotext", [...(options.layout === false ? [] : ["-layout"]), "-enc", "UTF-8", file, "-"]);
    return stdout.replace(/[ \t]+/g, " ");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
