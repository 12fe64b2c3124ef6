// Right-to-left lines for the PDF (issue 44; docs/invoices.md, Its PDF). pdfkit hands a line to fontkit,
// which shapes it (joins Arabic letters, in logical order) and, for a line whose script is right to left,
// turns the whole line's glyphs around; it knows nothing of the numbers and Latin words inside. So the
// line is put in visual order by the Unicode Bidirectional Algorithm (bidi-js) and given to fontkit read
// backwards: its Arabic in logical order to shape, its numbers and Latin turned, and all of it turned once
// more by fontkit into what the algorithm says the eye should see.
import { createRequire } from "node:module";

type Bidi = ReturnType<typeof import("bidi-js").default>;
let loaded: Bidi | null = null;

/** Loaded with the first right-to-left line: most services never draw one. */
function bidi(): Bidi {
  if (loaded === null) {
    // bidi-js's CommonJS build exports its factory as the module itself; its types call it the default export.
    const factory: typeof import("bidi-js").default = createRequire(import.meta.url)("bidi-js");
    loaded = factory();
  }
  return loaded;
}

/** A letter of a right-to-left script (Arabic, Hebrew, Syriac, Thaana, N'Ko, and their presentation forms). */
const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;

/**
 * The line as pdfkit should be given it (with the `features` option, so that it lays the line out as one
 * run) to show it right to left, a paragraph whose base direction is right to left; a line without a
 * right-to-left letter as it is.
 */
export function visualLine(text: string): string {
  if (!RTL_LETTER.test(text)) return text;
  const algorithm = bidi();
  const levels = algorithm.getEmbeddingLevels(text, "rtl");
  return [...algorithm.getReorderedString(text, levels)].reverse().join("");
}
