/** The dashboard's code editor (CodeMirror 6, frontends/dashboard-emails/src/codemirror.ts) as the tests read it. */
import type { Page } from "playwright-core";

/**
 * The editor's whole text. CodeMirror renders only the lines in view, so the DOM's text may be partial: this asks the
 * editor's state through the content element's tile (`cmTile.root.view`, what EditorView.findFromDOM reads; pinned version).
 */
export function editorText(page: Page): Promise<string> {
  return page
    .locator(".cm-content")
    .evaluate((el) => (el as unknown as { cmTile: { root: { view: { state: { doc: { toString(): string } } } } } }).cmTile.root.view.state.doc.toString());
}
