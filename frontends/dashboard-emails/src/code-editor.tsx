/**
 * The TSX source field: CodeMirror (codemirror.ts) loaded on demand when the field first renders, with the problem of
 * the last render marked at its line. While the chunk loads the field shows a placeholder; if it cannot load (offline,
 * a deploy that removed it) the field falls back to the plain TextArea, so the source can still be edited.
 */
import { useEffect, useId, useRef, useState } from "react";
import { Skeleton, TextArea, useTheme } from "@vestibule/ui";
import type { CodeEditorHandle } from "./codemirror.ts";
import type { SourceProblem } from "./render-problem.ts";

export interface CodeEditorProps {
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  /** The last render's problem: marked at its line (a compile error) and said in the sentence above. */
  readonly problem: SourceProblem | null;
  readonly height?: number;
}

export function CodeEditor({ label, value, onChange, problem, height = 360 }: CodeEditorProps) {
  const labelId = useId();
  const problemId = useId();
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<CodeEditorHandle | null>(null);
  const latest = useRef({ value, onChange, problem });
  latest.current = { value, onChange, problem };
  const { theme } = useTheme();
  const dark = theme === "dark";
  const [status, setStatus] = useState<"loading" | "ready" | "failed">("loading");

  useEffect(() => {
    let gone = false;
    import("./codemirror.ts").then(
      ({ mountCodeEditor }) => {
        if (gone || !host.current) return;
        editor.current = mountCodeEditor(host.current, {
          value: latest.current.value,
          labelId,
          describedBy: problemId,
          dark,
          onChange: (v) => latest.current.onChange(v),
        });
        editor.current.setProblem(latest.current.problem);
        setStatus("ready");
      },
      () => {
        if (!gone) setStatus("failed");
      },
    );
    return () => {
      gone = true;
      editor.current?.destroy();
      editor.current = null;
    };
    // Mounted once per field; value, theme and problem reach the editor through the effects below.
  }, []);
  useEffect(() => editor.current?.setValue(value), [value]);
  useEffect(() => editor.current?.setDark(dark), [dark]);
  useEffect(() => editor.current?.setProblem(problem), [problem]);

  if (status === "failed") return <TextArea label={label} value={value} onChange={onChange} rows={14} error={problem?.sentence ?? null} />;
  return (
    <div className="vs-field">
      <span className="vs-label" id={labelId}>
        {label}
      </span>
      {problem ? (
        <p id={problemId} className="vs-field-error" role="alert" style={{ margin: 0 }}>
          {problem.sentence}
        </p>
      ) : (
        <span id={problemId} hidden />
      )}
      {status === "loading" ? <Skeleton height={height} /> : null}
      <div ref={host} data-code-editor="" style={{ height, display: status === "ready" ? "block" : "none" }} />
    </div>
  );
}
