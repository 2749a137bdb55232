// The e-mail render process: renders admin-written TSX templates and themes (untrusted code, compiled to CommonJS by
// the host) with React inside a fresh `node:vm` context per render (renders of the platform's own default sources
// only reuse one; see `reusable`). Plain JavaScript so that it runs in a plain `node`,
// whatever loader the host process uses.
//
// It is a child process of the e-mail service (renderer.ts), started with an empty environment (none of the service's
// secrets: master keys, service secret, database URL) and under Node's permission model: it may read only this
// directory and the packages it loads (given on the command line), and may not write files, start processes or
// workers, or load addons. The host answers over the IPC channel only.
//
// What keeps untrusted code in: (1) the process's heap limit set by the host, which kills and replaces the process on
// a timeout or when it dies; (2) a context whose global object has a null prototype (a normal
// object would hand out this realm's Object.prototype functions, and through their constructor, this realm's
// Function and `process`), with string code generation and WebAssembly disabled, no timers, no `process`, no
// `require`, and no ArrayBuffer/typed arrays (their memory lies outside the heap limit); (3) only strings cross between
// this realm and the context, in both directions, and every call into the context runs under the vm timeout, with
// its microtasks drained inside that timeout (microtaskMode "afterEvaluate").
import { readFileSync } from "node:fs";
import { join } from "node:path";
import vm from "node:vm";

// The host resolves the packages (resolution outside the readable directories would be refused) and passes them:
// `--paths=<JSON {react, reactDom, htmlToText}>` (directories, and the html-to-text entry as a file URL).
const pathsArg = process.argv.find((a) => a.startsWith("--paths="));
if (!pathsArg || typeof process.send !== "function") {
  console.error("render-worker.mjs is started by the e-mail renderer (renderer.ts), with --paths and an IPC channel");
  process.exit(2);
}
const paths = JSON.parse(pathsArg.slice("--paths=".length));
const reactDir = paths.react;
const reactDomDir = paths.reactDom;
const htmlToText = await import(paths.htmlToText);
const convert = htmlToText.convert ?? htmlToText.default.convert;

/** A CommonJS module compiled once per worker; instantiated in every render context. */
function moduleScript(filename, source) {
  return new vm.Script(`(function (module, exports, require) {${source}\n})`, { filename });
}
function fileModule(path) {
  return moduleScript(path, readFileSync(path, "utf8"));
}

// Dependency order matters: each module may require the ones before it.
const LIBRARY = [
  ["react", fileModule(join(reactDir, "cjs/react.production.js"))],
  ["react/jsx-runtime", fileModule(join(reactDir, "cjs/react-jsx-runtime.production.js"))],
  ["react-dom", fileModule(join(reactDomDir, "cjs/react-dom.production.js"))],
  ["react-dom/server", fileModule(join(reactDomDir, "cjs/react-dom-server-legacy.browser.production.js"))],
  ["@vestibule/emails", fileModule(new URL("./components.cjs", import.meta.url).pathname)],
  ["arktype", fileModule(new URL("./arktype.cjs", import.meta.url).pathname)],
];

/** What react-email's render() puts before a rendered document (the published product's e-mails start with it). */
const DOCTYPE = '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">';

/** Runs in the context before any untrusted code: the module registry and the render entry point. */
const BOOTSTRAP = new vm.Script(
  String.raw`(function () {
  "use strict";
  const g = globalThis;
  const modules = Object.create(null);
  const aliases = { "@stackframe/emails": "@vestibule/emails", "@react-email/components": "@vestibule/emails", "react/jsx-dev-runtime": "react/jsx-runtime" };
  const stringify = JSON.stringify, parse = JSON.parse, StringCtor = String, ObjectKeys = Object.keys;
  function requireModule(name) {
    const key = aliases[name] || name;
    const m = modules[key];
    if (!m) throw new Error("Cannot import \"" + name + "\": e-mail templates and themes can import only react, react/jsx-runtime, @vestibule/emails (also as @stackframe/emails and @react-email/components) and arktype.");
    return m.exports;
  }
  function define(name, factory) {
    const module = { exports: {} };
    modules[name] = module;
    factory.call(module.exports, module, module.exports, requireModule);
    return module.exports;
  }
  function describe(err) {
    try {
      if (err && typeof err === "object" && typeof err.message === "string") {
        return (err.name && err.name !== "Error" ? StringCtor(err.name) + ": " : "") + err.message;
      }
      return StringCtor(err);
    } catch (e) {
      return "The template threw a value that cannot be shown.";
    }
  }
  function pick(exports, names, what) {
    for (const n of names) if (exports && typeof exports[n] === "function") return exports[n];
    throw new Error("The " + what + " must export a function component named " + names[0] + ".");
  }
  g.__vestibuleDefine = define;
  g.__vestibuleRender = function () {
    try {
      const input = parse(g.__vestibuleInput);
      const React = modules["react"].exports;
      const server = modules["react-dom/server"].exports;
      const emails = modules["@vestibule/emails"].exports;
      const collected = emails.__beginRender();
      let content;
      if (input.template) {
        const templateExports = define("template", g.__vestibuleTemplate);
        const Template = pick(templateExports, ["EmailTemplate", "default"], "template");
        let variables = input.variables;
        if (input.previewVariables) {
          const preview = Template.PreviewVariables;
          variables = preview && typeof preview === "object" ? preview : {};
        } else if (typeof templateExports.variablesSchema === "function") {
          // A template's declared variables (arktype): the variables must match it.
          const checked = templateExports.variablesSchema(variables || {});
          if (checked && typeof checked === "object" && typeof checked.summary === "string" && Array.isArray(checked.problems)) {
            throw new Error("The variables do not match the template's variablesSchema: " + checked.summary);
          }
        }
        content = React.createElement(Template, { user: input.user, project: input.project, variables: variables || {} });
      } else {
        content = React.createElement("div", { dangerouslySetInnerHTML: { __html: StringCtor(input.bodyHtml || "") } });
      }
      let element = content;
      if (input.theme) {
        const Theme = pick(define("theme", g.__vestibuleTheme), ["EmailTheme", "default"], "theme");
        const themeProps = { project: input.project, children: content };
        if (input.unsubscribeLink) themeProps.unsubscribeLink = input.unsubscribeLink;
        element = React.createElement(Theme, themeProps);
      }
      const html = server.renderToStaticMarkup(element);
      if (typeof html !== "string") throw new Error("rendering gave no HTML");
      const out = { html: html };
      if (typeof collected.subject === "string") out.subject = collected.subject;
      if (typeof collected.notificationCategory === "string") out.notificationCategory = collected.notificationCategory;
      return stringify(out);
    } catch (err) {
      return stringify({ error: describe(err) });
    }
  };
})();`,
  { filename: "vestibule-render-bootstrap.js" },
);

const RENDER = new vm.Script("__vestibuleRender()", { filename: "vestibule-render.js" });

/** Globals removed before untrusted code runs: off-heap memory, shared memory, code generation. */
const REMOVED_GLOBALS = [
  "ArrayBuffer", "SharedArrayBuffer", "DataView", "Atomics", "WebAssembly", "FinalizationRegistry", "WeakRef",
  "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
  "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array", "Float16Array",
];
const CLEANUP = new vm.Script(`(function () { for (const n of ${JSON.stringify(REMOVED_GLOBALS)}) { try { delete globalThis[n]; } catch (e) {} } })();`);

/** Compiled untrusted modules, by source, so that re-rendering a template does not compile it again. */
const compiled = new Map();
function untrusted(filename, code) {
  const key = `${filename}\u0000${code}`;
  let script = compiled.get(key);
  if (script) {
    compiled.delete(key);
  } else {
    script = moduleScript(filename, code);
  }
  compiled.set(key, script);
  if (compiled.size > 200) compiled.delete(compiled.keys().next().value);
  return script;
}

/**
 * Contexts set up for the platform's own default templates and themes (`job.reuse`, decided by the host: every source
 * the context ever ran is one shipped with the service, none an admin wrote), by compiled code: setting up a context
 * (React evaluated in it) costs more than the render itself, and code the platform wrote leaves nothing in it that a
 * later render could see. A context that ever ran an admin's code is never reused.
 */
const reusable = new Map();

function render(job) {
  const timeout = job.timeoutMs;
  const deadline = Date.now() + timeout;
  const remaining = () => Math.max(1, deadline - Date.now());
  const key = job.reuse ? `${job.template ?? ""}\u0000${job.theme ?? ""}` : undefined;
  let context = key === undefined ? undefined : reusable.get(key);
  if (!context) {
    context = setUp(job, remaining);
    if (key !== undefined) {
      reusable.set(key, context);
      if (reusable.size > 20) reusable.delete(reusable.keys().next().value);
    }
  }
  context.__vestibuleInput = job.input;
  const result = RENDER.runInContext(context, { timeout: remaining() });
  if (typeof result !== "string") return JSON.stringify({ error: "rendering gave no result" });
  return result;
}

/** A new context with the library, the template and the theme (not yet run: each render instantiates them). */
function setUp(job, remaining) {
  const context = vm.createContext(Object.create(null), {
    name: "vestibule-email-render",
    codeGeneration: { strings: false, wasm: false },
    microtaskMode: "afterEvaluate",
  });
  BOOTSTRAP.runInContext(context, { timeout: remaining() });
  for (const [name, script] of LIBRARY) {
    context.__vestibuleModule = script.runInContext(context, { timeout: remaining() });
    context.__vestibuleName = name;
    vm.runInContext("__vestibuleDefine(__vestibuleName, __vestibuleModule)", context, { timeout: remaining() });
  }
  CLEANUP.runInContext(context, { timeout: remaining() });
  // Only the (untrusted) module functions and strings go into the context.
  if (job.template) context.__vestibuleTemplate = untrusted("template.tsx", job.template).runInContext(context, { timeout: remaining() });
  if (job.theme) context.__vestibuleTheme = untrusted("theme.tsx", job.theme).runInContext(context, { timeout: remaining() });
  return context;
}

/**
 * The plain-text alternative: links keep their URL (so codes in links survive), headings keep their case, images and
 * hidden preheaders (<Preview>) are left out.
 */
function textOf(html) {
  return convert(html, {
    wordwrap: 100,
    selectors: [
      { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
      { selector: "img", format: "skip" },
      { selector: "head", format: "skip" },
      { selector: "[data-skip-in-text]", format: "skip" },
      ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: { uppercase: false } })),
    ],
  });
}

function handle(job) {
  let parsed;
  try {
    parsed = JSON.parse(render(job));
  } catch (err) {
    // The vm timeout, a syntax error of the compiled code, ...: errors of this realm.
    const message = err && typeof err.message === "string" ? err.message : String(err);
    return { error: /timed out/i.test(message) ? `Rendering took longer than ${job.timeoutMs} ms.` : message };
  }
  if (typeof parsed.error === "string") return { error: parsed.error };
  const markup = typeof parsed.html === "string" ? parsed.html : "";
  // A rendered document (a theme's <Html>) gets the doctype, as the published product's renderer writes it.
  const html = markup.startsWith("<html") ? DOCTYPE + markup : markup;
  if (html.length > job.maxHtmlLength) return { error: `The rendered e-mail is larger than ${job.maxHtmlLength} characters.` };
  const out = { html, text: textOf(html) };
  if (typeof parsed.subject === "string") out.subject = parsed.subject;
  if (typeof parsed.notificationCategory === "string") out.notificationCategory = parsed.notificationCategory;
  return out;
}

process.on("message", (job) => {
  process.send({ id: job.id, result: handle(job) });
});
// The host went away (stopped or crashed): nothing left to render for.
process.on("disconnect", () => process.exit(0));
process.send({ ready: true });
