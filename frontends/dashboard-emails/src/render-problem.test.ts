import { describe, expect, it } from "vitest";
import { KnownError } from "@vestibule/js";
import { renderProblem } from "./render-problem.ts";
import { sentSentence } from "./send-draft.tsx";

const rendering = (error: string) => new KnownError("EMAIL_RENDERING_ERROR", `Failed to render email with theme: ${error}`, { error });

describe("renderProblem", () => {
  it("a compile error in the edited source: its line and column, and a sentence without the API's words", () => {
    const p = renderProblem(rendering('template.tsx:3:15: Expected "}" but found "<"'), "template")!;
    expect(p).toMatchObject({ line: 3, column: 15, detail: 'Expected "}" but found "<"' });
    expect(p.sentence).toBe('Line 3 does not compile: a "}" is missing before "<".');
    expect(p.sentence).not.toContain("Failed to render");
  });

  it("a compile error in the theme while editing a template points to the Themes tab, with no line of this source", () => {
    const p = renderProblem(rendering("theme.tsx:1:4: Unexpected end of file"), "template")!;
    expect(p.line).toBeUndefined();
    expect(p.sentence).toContain("Themes tab");
  });

  it("errors without a location get a sentence; other errors are not rendering problems", () => {
    expect(renderProblem(rendering("The template source is longer than 100000 characters."), "template")!.sentence).toBe("The source is too long to render. Shorten it.");
    expect(renderProblem(rendering("template: no EmailTemplate export"), "template")!.sentence).toBe("The source must export a function named EmailTemplate.");
    expect(renderProblem(new KnownError("REQUIRES_CUSTOM_EMAIL_SERVER"), "template")).toBeNull();
    expect(renderProblem(new Error("offline"), "template")).toBeNull();
  });
});

describe("sentSentence", () => {
  it("counts the users with an address; those without one got nothing", () => {
    expect(sentSentence([{ primaryEmail: "a@x.example" }, { primaryEmail: "b@x.example" }])).toBe("Sent to 2 users. Delivery shows in the Sent tab.");
    expect(sentSentence([{ primaryEmail: "a@x.example" }, { primaryEmail: null }])).toBe("Sent to 1 user; 1 user without an e-mail address got nothing. Delivery shows in the Sent tab.");
  });
});
