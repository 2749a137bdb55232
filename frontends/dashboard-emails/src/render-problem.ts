/**
 * What a failed render (POST /emails/render-email) means for the person editing the source: a plain sentence for
 * above the editor and, for a compile error, the line and column to mark. The renderer reports EMAIL_RENDERING_ERROR
 * with `details.error` such as `template.tsx:3:15: Expected "}" but found ")"` (services/email/src/render/renderer.ts).
 */
import { KnownError } from "@vestibule/js";

export interface SourceProblem {
  /** The sentence above the editor. */
  readonly sentence: string;
  /** 1-based; set for a compile error. */
  readonly line?: number;
  readonly column?: number;
  /** The compiler's or renderer's own words, shown at the marked line. */
  readonly detail: string;
}

const LOCATED = /^(template|theme)\.tsx:(\d+):(\d+):\s*(.*)$/s;

/** The part being edited: a compile error in the other part (e.g. the stored theme) is no line of this source. */
export type EditedPart = "template" | "theme";

/** The problem a render error describes, or null when it is no rendering error (show it with ErrorAlert then). */
export function renderProblem(err: unknown, edited: EditedPart): SourceProblem | null {
  if (!(err instanceof KnownError) || err.errorCode !== "EMAIL_RENDERING_ERROR") return null;
  const reason = typeof err.details?.error === "string" ? err.details.error : "";
  const located = LOCATED.exec(reason.trim());
  if (located) {
    const [, part, line, column, text] = located;
    const what = part === "theme" ? "theme" : "template";
    const detail = (text ?? "").trim();
    if (part !== edited) return { sentence: `The ${what} this e-mail uses does not compile (line ${line}): fix it in the Themes tab.`, detail };
    return { sentence: `Line ${line} does not compile: ${plainCompilerText(detail)}`, line: Number(line), column: Number(column), detail };
  }
  if (/longer than \d+ characters/.test(reason)) return { sentence: "The source is too long to render. Shorten it.", detail: reason };
  if (/time|CPU/i.test(reason)) return { sentence: "Rendering took too long and was stopped. Look for a loop that never ends.", detail: reason };
  if (/EmailTemplate/.test(reason)) return { sentence: "The source must export a function named EmailTemplate.", detail: reason };
  if (/EmailTheme/.test(reason)) return { sentence: "The source must export a function named EmailTheme.", detail: reason };
  return { sentence: "This source compiles but fails when it runs. Check the values it uses.", detail: reason };
}

/** esbuild's common messages in words for someone who did not write a compiler. */
function plainCompilerText(text: string): string {
  const expected = /^Expected "(.+?)" but found (.+)$/.exec(text);
  if (expected) return `a "${expected[1]}" is missing before ${expected[2] === "end of file" ? "the end of the file" : expected[2]}.`;
  if (/^Unexpected end of file/.test(text)) return "the file ends too early: a bracket or tag is not closed.";
  if (/^Unterminated string/.test(text)) return "a string is not closed with its quote.";
  if (/^Unterminated regular expression/.test(text)) return 'a "}" or a closing tag is missing (the "/" on this line starts an unfinished regular expression).';
  const closing = /^Unexpected closing "(.+?)" tag does not match opening "(.+?)" tag$/.exec(text);
  if (closing) return `the closing </${closing[1]}> tag does not match the opening <${closing[2]}> tag.`;
  return `${text.replace(/\.$/, "")}.`;
}
