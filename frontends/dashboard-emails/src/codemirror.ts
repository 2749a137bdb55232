/**
 * The TSX code editor (CodeMirror 6), in a chunk of its own: code-editor.tsx loads this module with `import()` only
 * when an editor opens, so neither the dashboard's first load nor the hosted pages carry it.
 *
 * TSX highlighting, line numbers, history, bracket matching, Tab to indent; colours from the dashboard's theme
 * variables (`--vs-*`), with a highlight style for each theme; a compile error shown at its line (lint diagnostic).
 */
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { javascript } from "@codemirror/lang-javascript";
import { HighlightStyle, bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { tags } from "@lezer/highlight";
import type { SourceProblem } from "./render-problem.ts";

export interface CodeEditorHandle {
  /** Replaces the text unless it already is `value` (the owner's own typing comes back as the same value). */
  setValue(value: string): void;
  /** Marks the problem at its line, or clears the marks. */
  setProblem(problem: SourceProblem | null): void;
  setDark(dark: boolean): void;
  focus(): void;
  destroy(): void;
}

export interface CodeEditorOptions {
  readonly value: string;
  /** The id of the visible label (aria-labelledby of the editable content). */
  readonly labelId: string;
  readonly describedBy?: string;
  readonly dark: boolean;
  readonly onChange: (value: string) => void;
}

/** Readable on the dark surface (defaultHighlightStyle is made for a light one). */
const darkHighlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.modifier, tags.operatorKeyword], color: "#c4a7ff" },
  { tag: [tags.string, tags.special(tags.string)], color: "#9ee6a8" },
  { tag: [tags.number, tags.bool, tags.null], color: "#ffc58a" },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: "#8b93a6", fontStyle: "italic" },
  { tag: [tags.typeName, tags.className, tags.tagName], color: "#7cc7ff" },
  { tag: [tags.attributeName, tags.propertyName], color: "#f5b3d0" },
  { tag: [tags.definition(tags.variableName), tags.function(tags.variableName)], color: "#eceef3" },
  { tag: tags.invalid, color: "#fda29b" },
]);

const base = EditorView.theme({
  "&": { backgroundColor: "var(--vs-surface)", color: "var(--vs-text)", border: "1px solid var(--vs-input-border)", borderRadius: "8px", fontSize: "13px", height: "100%" },
  "&.cm-focused": { outline: "2px solid var(--vs-focus)", outlineOffset: "1px" },
  ".cm-scroller": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace", lineHeight: "1.5" },
  ".cm-gutters": { backgroundColor: "var(--vs-surface-2)", color: "var(--vs-muted)", border: "none", borderRadius: "8px 0 0 8px" },
  ".cm-activeLine": { backgroundColor: "color-mix(in srgb, var(--vs-primary) 7%, transparent)" },
  ".cm-activeLineGutter": { backgroundColor: "color-mix(in srgb, var(--vs-primary) 14%, transparent)" },
  ".cm-cursor": { borderLeftColor: "var(--vs-text)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground": { backgroundColor: "color-mix(in srgb, var(--vs-primary) 30%, transparent)" },
  ".cm-tooltip": { backgroundColor: "var(--vs-surface)", color: "var(--vs-text)", border: "1px solid var(--vs-border)" },
});

const colours = (dark: boolean) => [EditorView.darkTheme.of(dark), syntaxHighlighting(dark ? darkHighlight : defaultHighlightStyle)];

export function mountCodeEditor(parent: HTMLElement, options: CodeEditorOptions): CodeEditorHandle {
  const scheme = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: options.value,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        lintGutter(),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        javascript({ jsx: true, typescript: true }),
        base,
        scheme.of(colours(options.dark)),
        EditorView.contentAttributes.of({
          "aria-labelledby": options.labelId,
          ...(options.describedBy ? { "aria-describedby": options.describedBy } : {}),
          spellcheck: "false",
        }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) options.onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    setValue(value) {
      if (view.state.doc.toString() !== value) view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: value } });
    },
    setProblem(problem) {
      const doc = view.state.doc;
      if (!problem || problem.line === undefined) {
        view.dispatch(setDiagnostics(view.state, []));
        return;
      }
      const line = doc.line(Math.min(Math.max(problem.line, 1), doc.lines));
      // From the column to the end of the line; the whole line when the column is at its end (an unterminated
      // string or regular expression is reported there), so the mark is never an empty point.
      const at = line.from + Math.max((problem.column ?? 1) - 1, 0);
      view.dispatch(setDiagnostics(view.state, [{ from: at < line.to ? at : line.from, to: line.to, severity: "error", message: problem.detail }]));
    },
    setDark(dark) {
      view.dispatch({ effects: scheme.reconfigure(colours(dark)) });
    },
    focus() {
      view.focus();
    },
    destroy() {
      view.destroy();
    },
  };
}
