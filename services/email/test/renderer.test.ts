import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isKnownError, type KnownError } from "@vestibule/shared/errors";
import { createLogger } from "@vestibule/shared/log";
import { DEFAULT_EMAIL_THEMES, DEFAULT_TEMPLATE_IDS, DEFAULT_EMAIL_TEMPLATES, defaultNewTemplateSource } from "@stackframe/stack-shared/dist/helpers/emails";
import { EmailRenderer } from "../src/render/renderer.ts";

const log = createLogger({ service: "test", level: "silent" });
const TIMEOUT_MS = 400;

const THEME = `
import { Html, Head, Body, Container, Link } from "@vestibule/emails";
export function EmailTheme({ children, unsubscribeLink, project }) {
  return <Html><Head /><Body><Container>{children}</Container>
    <p>Sent by {project.displayName}</p>
    {unsubscribeLink && <Link href={unsubscribeLink}>Unsubscribe</Link>}
  </Body></Html>;
}`;

const TEMPLATE = `
import { Subject, NotificationCategory, Text, Button } from "@vestibule/emails";
type Vars = { link: string; otp?: string };
export function EmailTemplate({ user, project, variables }: { user: { displayName: string | null }; project: { displayName: string }; variables: Vars }) {
  return <>
    <Subject value={"Hello from " + project.displayName} />
    <NotificationCategory value="Marketing" />
    <Text>Hi {user.displayName ?? "there"}, your code is {variables.otp}</Text>
    <Button href={variables.link}>Open</Button>
  </>;
}
EmailTemplate.PreviewVariables = { link: "https://preview.example/x", otp: "PREV01" } satisfies Vars;
`;

const props = { user: { displayName: "Ada" }, project: { displayName: "Acme" } };

async function renderError(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isKnownError(err, "EMAIL_RENDERING_ERROR")).toBe(true);
  return (err as KnownError<"EMAIL_RENDERING_ERROR">).details.error;
}

describe("EmailRenderer", () => {
  let renderer: EmailRenderer;
  beforeAll(() => {
    renderer = new EmailRenderer({ workers: 2, timeoutMs: TIMEOUT_MS, memoryMb: 32, log });
  });
  afterAll(async () => {
    await renderer.close();
  });

  const good = () =>
    renderer.render({ ...props, templateSource: TEMPLATE, themeSource: THEME, variables: { link: "https://app.example/?code=abc", otp: "XYZ123" }, unsubscribeLink: "https://u.example/unsub" });

  it("renders a TSX template in a TSX theme with React, collecting subject and category, with a text part", async () => {
    const r = await good();
    expect(r.subject).toBe("Hello from Acme");
    expect(r.notificationCategory).toBe("Marketing");
    expect(r.html).toMatch(/^<!DOCTYPE html PUBLIC "-\/\/W3C\/\/DTD XHTML 1.0 Transitional\/\/EN" "http:\/\/www.w3.org\/TR\/xhtml1\/DTD\/xhtml1-transitional.dtd"><html lang="en" dir="ltr"><head>/);
    expect(r.html).toContain("Hi Ada, your code is XYZ123");
    expect(r.html).toContain('href="https://app.example/?code=abc"');
    expect(r.html).toContain("<p>Sent by Acme</p>");
    expect(r.html).toContain('href="https://u.example/unsub"');
    expect(r.text).toContain("Hi Ada, your code is XYZ123");
    expect(r.text).toContain("https://app.example/?code=abc");
  });

  it("leaves the hidden preheader out of the text part and keeps headings' case", async () => {
    const r = await renderer.render({
      ...props,
      templateSource: `import { Preview, Heading, Text } from "@vestibule/emails"; export function EmailTemplate() { return <><Preview>Hidden preheader</Preview><Heading>Welcome Home</Heading><Text>Body</Text></>; }`,
    });
    expect(r.html).toContain("Hidden preheader");
    expect(r.text).not.toContain("Hidden preheader");
    expect(r.text).toContain("Welcome Home");
  });

  it("uses the preview variables, renders without a theme, and wraps given HTML in a theme", async () => {
    const preview = await renderer.render({ ...props, templateSource: TEMPLATE, previewVariables: true });
    expect(preview.html).toContain("PREV01");
    expect(preview.html).not.toContain("<html");
    const wrapped = await renderer.render({ ...props, bodyHtml: "<p>Hand-written</p>", themeSource: THEME });
    expect(wrapped.html).toContain("<div><p>Hand-written</p></div>");
    expect(wrapped.subject).toBeUndefined();
  });

  it("reports syntax errors with their location, and a missing component export", async () => {
    expect(await renderError(renderer.render({ ...props, templateSource: "export function EmailTemplate() { return <div>; }" }))).toMatch(
      /^template\.tsx:1:\d+: /,
    );
    expect(await renderError(renderer.render({ ...props, templateSource: "export const x = 1;" }))).toBe(
      "The template must export a function component named EmailTemplate.",
    );
  });

  it("gives template code no Node APIs: no process, require, host Function, imports or off-heap memory", async () => {
    const attempt = (body: string) =>
      renderError(renderer.render({ ...props, templateSource: `export function EmailTemplate() { ${body}; return null; }` }));
    expect(await attempt("process.exit(1)")).toBe("ReferenceError: process is not defined");
    expect(await attempt("require('fs')")).toMatch(/Cannot import "fs"/);
    expect(await attempt("globalThis.constructor.constructor('return process')()")).toMatch(/Code generation from strings disallowed/);
    expect(await attempt("(function(){}).constructor('return this')()")).toMatch(/Code generation from strings disallowed/);
    expect(await attempt("Object.prototype.hasOwnProperty.constructor('return process')()")).toMatch(/Code generation from strings disallowed/);
    expect(await attempt("eval('1')")).toMatch(/Code generation from strings disallowed/);
    expect(await attempt("new ArrayBuffer(2 ** 31)")).toBe("ReferenceError: ArrayBuffer is not defined");
    expect(await attempt("new Uint8Array(2 ** 31)")).toBe("ReferenceError: Uint8Array is not defined");
    expect(await attempt("setTimeout(() => {}, 1)")).toBe("ReferenceError: setTimeout is not defined");
    expect(await renderError(renderer.render({ ...props, templateSource: `import fs from "node:fs"; export function EmailTemplate() { return fs.readFileSync("/etc/passwd", "utf8"); }` }))).toMatch(
      /Cannot import "node:fs"/,
    );
    expect(await attempt("throw new TypeError('broken on purpose')")).toBe("TypeError: broken on purpose");
  });

  it("stops an endless loop within the time limit and keeps serving", async () => {
    for (const body of ["while (true) {}", "for (;;) { Math.random(); }"]) {
      const started = Date.now();
      expect(await renderError(renderer.render({ ...props, templateSource: `export function EmailTemplate() { ${body} }` }))).toBe(
        `Rendering took longer than ${TIMEOUT_MS} ms.`,
      );
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1_500);
    }
    // At module level, and in endlessly chained promise jobs.
    expect(await renderError(renderer.render({ ...props, templateSource: "while (true) {} export function EmailTemplate() { return null; }" }))).toMatch(/longer than/);
    expect(
      await renderError(
        renderer.render({ ...props, templateSource: "const f = () => Promise.resolve().then(f); f(); export function EmailTemplate() { return null; }" }),
      ),
    ).toMatch(/longer than|out of memory/);
    expect((await good()).subject).toBe("Hello from Acme");
  });

  it("stops a template that exhausts memory and keeps serving", async () => {
    const started = Date.now();
    const reason = await renderError(
      renderer.render({ ...props, templateSource: "export function EmailTemplate() { const a = []; for (;;) a.push(new Array(100000).fill('x')); }" }),
    );
    expect(reason).toMatch(/out of memory|longer than/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await renderError(renderer.render({ ...props, templateSource: "export function EmailTemplate() { return 'x'.repeat(2 ** 30); }" }))).toMatch(
      /Invalid string length|out of memory|larger than/,
    );
    expect(await renderError(renderer.render({ ...props, templateSource: "export function EmailTemplate() { const f = () => f(); f(); }" }))).toMatch(
      /Maximum call stack size exceeded/,
    );
    expect((await good()).subject).toBe("Hello from Acme");
  });

  it("renders many e-mails concurrently", async () => {
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 50 }, () => good()));
    expect(results.every((r) => r.subject === "Hello from Acme")).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  describe("templates written for the published product (@stackframe/stack-shared 2.8.108's own sources)", () => {
    const themes = Object.values(DEFAULT_EMAIL_THEMES as Record<string, { tsxSource: string }>);

    it("its new-template source (arktype variables schema, @react-email/components, @stackframe/emails) renders in its themes", async () => {
      for (const theme of themes) {
        const r = await renderer.render({ ...props, templateSource: defaultNewTemplateSource, themeSource: theme.tsxSource, variables: { count: 7 } });
        expect(r.subject).toBe("Hello Ada!");
        expect(r.notificationCategory).toBe("Transactional");
        expect(r.html.startsWith('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"')).toBe(true);
        expect(r.html).toContain("<html");
        expect(r.text).toContain("count is 7");
      }
      const preview = await renderer.render({ ...props, templateSource: defaultNewTemplateSource, themeSource: themes[0]!.tsxSource, previewVariables: true });
      expect(preview.text).toContain("count is 10");
    });

    it("variables that do not match the template's arktype variablesSchema are a rendering error", async () => {
      const wrong = await renderError(renderer.render({ ...props, templateSource: defaultNewTemplateSource, themeSource: null, variables: { count: "seven" } }));
      expect(wrong).toContain("variablesSchema");
      expect(wrong).toContain("count must be a number");
      expect(await renderError(renderer.render({ ...props, templateSource: defaultNewTemplateSource, themeSource: null, variables: {} }))).toContain("count must be defined");
    });

    it("its default templates (the ids of DEFAULT_TEMPLATE_IDS) render with their preview variables", async () => {
      const templates = DEFAULT_EMAIL_TEMPLATES as Record<string, { tsxSource: string }>;
      for (const [name, id] of Object.entries(DEFAULT_TEMPLATE_IDS as Record<string, string>)) {
        const t = templates[id];
        expect(t, name).toBeDefined();
        const r = await renderer.render({ ...props, templateSource: t!.tsxSource, themeSource: themes[0]!.tsxSource, previewVariables: true });
        expect(r.subject, name).toBeTruthy();
        expect(r.html.startsWith("<!DOCTYPE html"), name).toBe(true);
      }
    });

    it("arktype shapes: optional keys, arrays, unions and literals", async () => {
      const source = `import { type } from "arktype";
export const variablesSchema = type({ name: "string", "nick?": "string", tags: "string[]", mode: "'a' | 'b'", n: "number | null" });
export function EmailTemplate({ variables }) { return <p>{variables.name}:{variables.tags.join(",")}</p>; }`;
      const ok = await renderer.render({ ...props, templateSource: source, themeSource: null, variables: { name: "x", tags: ["t1", "t2"], mode: "b", n: null } });
      expect(ok.html).toBe("<p>x:t1,t2</p>");
      const bad = await renderError(renderer.render({ ...props, templateSource: source, themeSource: null, variables: { name: "x", nick: 1, tags: [1], mode: "c", n: "1" } }));
      for (const part of ["nick must be a string", "tags[0] must be a string", "mode must be", "n must be"]) expect(bad).toContain(part);
    });
  });
});

describe("EmailRenderer: render contexts of the platform's own sources (issue 19)", () => {
  // Counts the renders its context has seen: 1 every time in a fresh context.
  const COUNTING = `
import { Subject, Text } from "@vestibule/emails";
export function EmailTemplate({ variables }) {
  globalThis.renders = (globalThis.renders || 0) + 1;
  return <><Subject value="Counted" /><Text>render {String(globalThis.renders)} for {variables.link}</Text></>;
}`;
  let renderer: EmailRenderer;
  beforeAll(() => {
    renderer = new EmailRenderer({ workers: 1, timeoutMs: TIMEOUT_MS, memoryMb: 32, log, platformSources: [COUNTING, THEME] });
  });
  afterAll(async () => {
    await renderer.close();
  });

  it("are reused across renders, each with its own variables; any other source gets a fresh context every time", async () => {
    const ours = [];
    for (const link of ["https://a.example/1", "https://a.example/2", "https://a.example/3"]) {
      ours.push((await renderer.render({ ...props, templateSource: COUNTING, themeSource: THEME, variables: { link } })).html);
    }
    expect(ours[0]).toContain("render 1 for https://a.example/1");
    expect(ours[1]).toContain("render 2 for https://a.example/2");
    expect(ours[2]).toContain("render 3 for https://a.example/3");
    // The same template with an admin's theme (not a platform source): a fresh context for every render.
    const theirs = `${THEME}\n// edited by an admin`;
    for (let i = 0; i < 2; i++) {
      expect((await renderer.render({ ...props, templateSource: COUNTING, themeSource: theirs, variables: { link: "https://b.example" } })).html).toContain("render 1 for https://b.example");
    }
  });
});
