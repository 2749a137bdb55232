/**
 * Issue 21, the e-mail editor's depth and item 11's "drafts cannot be sent", in Chromium against the whole platform:
 * a template opens in the code editor (CodeMirror, loaded on demand); a syntax error is marked at its line with a
 * plain sentence; fixed, the live preview shows the subject; the preview switches theme; the template's theme is
 * picked and saved; a draft is sent to two of three users after a confirmation, and both messages reach the dev
 * mailbox (the project's own SMTP server is the dev mailbox's SMTP port here); without the editor's chunk the source
 * is edited in a plain text field. Screenshots at desktop and 390 px.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Page } from "playwright-core";
import { freePorts } from "@vestibule/shared/testing";
import type { TestPlatform } from "../../../deploy/src/test-platform.ts";
import type { Browser } from "../src/browser.ts";
import { startBrowserPlatform, stopBrowserPlatform } from "../src/platform.ts";
import { shot, shotDialog } from "../src/screenshots.ts";
import { PASSWORD, ownerWithProject, run } from "../src/accounts.ts";
import { editorText } from "../src/code-editor.ts";

vi.setConfig({ testTimeout: 240_000 });

const projectName = `Mail ${run}`;
const recipients = ["ada", "bob", "cy"].map((n) => `${n}-${run}@example.com`);

let tp: TestPlatform;
let browser: Browser;
let url: string;
let smtpPort: number;
let page: Page;
let projectPath = "";

beforeAll(async () => {
  [smtpPort] = await freePorts(1);
  // The project's "own" SMTP server is the dev mailbox on loopback, which the egress check allows only when told to.
  ({ tp, browser, url } = await startBrowserPlatform({ platform: { env: { VESTIBULE_DEV_SMTP_PORT: String(smtpPort), VESTIBULE_EGRESS_ALLOW: "127.0.0.0/8" } } }));
  page = await browser.newPage();
  projectPath = await ownerWithProject(page, url, `mail-owner-${run}@example.com`, PASSWORD, projectName);
}, 300_000);

afterAll(() => stopBrowserPlatform({ tp, browser }));

describe("e-mail editor", () => {
  it("a template opens in the code editor; a syntax error is marked at its line; fixed, the preview shows the subject in either theme; the template's theme is saved", async () => {
    await page.goto(`${url}${projectPath}/emails`);
    await page.getByRole("tab", { name: "Templates" }).click();
    await page.getByLabel("New template name").fill("Welcome");
    await page.getByRole("button", { name: "Create" }).click();
    await page.getByRole("button", { name: "Welcome" }).click();
    const editor = page.getByRole("textbox", { name: "TSX source" });
    await editor.waitFor();
    await expect(editor.getAttribute("contenteditable")).resolves.toBe("true");
    expect(await editorText(page)).toContain("EmailTemplate");

    // Line 3 misses a closing brace.
    await editor.fill(['import { Subject } from "@vestibule/emails";', "export function EmailTemplate() {", "  return <p>{oops</p>;", "}"].join("\n"));
    await page.getByText("Line 3 does not compile").waitFor();
    const marked = page.locator(".cm-line").filter({ has: page.locator(".cm-lintRange-error") });
    await marked.first().waitFor();
    await expect(marked.count()).resolves.toBe(1);
    await expect(marked.textContent()).resolves.toContain("<p>{oops</p>");
    await expect(page.locator(".cm-gutter-lint .cm-lint-marker-error").count()).resolves.toBe(1);
    await expect(page.getByText("Failed to render email").count()).resolves.toBe(0);
    await shot(page, "i21-email-editor-error");

    await editor.fill(['import { Subject } from "@vestibule/emails";', "export function EmailTemplate() {", '  return <><Subject value="Hello from the editor" /><p>Fixed body</p></>;', "}"].join("\n"));
    await page.getByTestId("preview-subject").getByText("Hello from the editor").waitFor();
    await expect(page.locator(".cm-lintRange-error").count()).resolves.toBe(0);
    const frame = page.frameLocator('iframe[title="Preview of Welcome"]');
    await frame.getByText("Fixed body").waitFor();
    const light = await page.locator('iframe[title="Preview of Welcome"]').getAttribute("srcdoc");
    expect(light).toContain("#f5f5f7");
    await shot(page, "i21-email-editor-preview");

    await page.getByLabel("Preview theme").selectOption({ label: "Default Dark" });
    await expect.poll(() => page.locator('iframe[title="Preview of Welcome"]').getAttribute("srcdoc"), { timeout: 10_000 }).toContain("#111114");
    await frame.getByText("Fixed body").waitFor();
    await shot(page, "i21-email-editor-dark-preview");

    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved.").waitFor();
    await page.getByLabel("Theme of this template").selectOption({ label: "Default Dark" });
    await page.reload();
    await page.getByRole("tab", { name: "Templates" }).click();
    await page.getByRole("button", { name: "Welcome" }).click();
    await expect.poll(async () => page.getByLabel("Theme of this template").locator("option:checked").textContent()).toBe("Default Dark");
    await page.getByRole("textbox", { name: "TSX source" }).waitFor();
    expect(await editorText(page)).toContain("Hello from the editor");
  });

  it("11: a draft is sent to two chosen users after a confirmation; both messages reach the dev mailbox, the third user gets none", async () => {
    await page.goto(`${url}${projectPath}/emails`);
    await page.getByRole("combobox", { name: "Sender" }).selectOption("standard");
    await page.getByLabel("SMTP host").fill("127.0.0.1");
    await page.getByLabel("Port").fill(String(smtpPort));
    await page.getByLabel("Username").fill("dev");
    await page.getByLabel("Password", { exact: true }).fill("dev");
    await page.getByLabel("Sender name").fill("Mail test");
    await page.getByLabel("Sender e-mail").fill("noreply@mail.example");
    await Promise.all([
      page.waitForResponse((r) => r.request().method() === "PATCH" && r.url().includes("/internal/projects/current") && r.ok()),
      page.getByRole("button", { name: "Save sender" }).click(),
    ]);

    // Three users of the project (one verified), made with the project's server key from the Keys area.
    await page.goto(`${url}${projectPath}/keys`);
    await page.getByLabel("Description").fill("e2e");
    await page.getByRole("button", { name: "Create keys" }).click();
    const secret = (await page.getByTestId("copy-Secret server key").textContent())!.trim();
    await page.getByRole("button", { name: "I have copied them" }).click();
    const projectId = projectPath.split("/")[2]!;
    for (const [i, email] of recipients.entries()) {
      const res = await fetch(`${tp.gatewayUrl}/api/v1/users`, {
        method: "POST",
        headers: { "x-stack-project-id": projectId, "x-stack-access-type": "server", "x-stack-secret-server-key": secret, "content-type": "application/json" },
        body: JSON.stringify({ primary_email: email, primary_email_verified: i === 0 }),
      });
      expect(res.status).toBe(201);
    }

    await page.goto(`${url}${projectPath}/emails`);
    await page.getByRole("tab", { name: "Drafts" }).click();
    await page.getByLabel("New draft name").fill("Launch news");
    await page.getByRole("button", { name: "Create" }).click();
    await page.getByRole("button", { name: "Launch news" }).click();
    await page.getByRole("textbox", { name: "TSX source" }).waitFor();
    await page.getByRole("button", { name: "Send…" }).click();
    const dialog = page.getByRole("dialog", { name: 'Send "Launch news"' });
    await dialog.getByText("3 users will get this e-mail.").waitFor();
    await dialog.getByLabel("Recipients").selectOption({ label: "Users with a verified e-mail" });
    await dialog.getByText("1 user will get this e-mail.").waitFor();
    await dialog.getByLabel("Recipients").selectOption({ label: "Specific users" });
    await dialog.getByLabel("E-mail addresses or user IDs").fill(`${recipients[0]}\n${recipients[1]}, nobody-${run}@example.com`);
    await dialog.getByText(`nobody-${run}@example.com`).waitFor();
    await expect(dialog.getByRole("button", { name: /Send to/ }).isDisabled()).resolves.toBe(true);
    await dialog.getByLabel("E-mail addresses or user IDs").fill(`${recipients[0]}\n${recipients[1]}`);
    await dialog.getByText("2 users will get this e-mail.").waitFor();
    await dialog.getByRole("button", { name: "Send to 2 users…" }).click();
    await dialog.getByText("Send to 2 users?").waitFor();
    await shotDialog(page, "i21-draft-send-confirm");
    // The e-mail service learns the project's new SMTP server from identity's event (the users were created since):
    // until then it refuses the send with a sentence, and the owner can press again.
    for (let attempt = 1; ; attempt++) {
      await dialog.getByRole("button", { name: "Send now" }).click();
      const sent = await dialog.getByText("Sent to 2 users.").waitFor({ timeout: 5_000 }).then(() => true, () => false);
      if (sent) break;
      expect(attempt, (await dialog.textContent()) ?? "").toBeLessThan(5);
    }
    await shotDialog(page, "i21-draft-sent");
    await dialog.getByRole("button", { name: "Done" }).click();
    await page.getByRole("cell", { name: "Not sent" }).waitFor({ state: "detached" });

    const subject = `News from ${projectName}`;
    const mailbox = async () => {
      const res = await fetch(`${url}/dev/mailbox?project_id=${projectId}&limit=50`);
      return ((await res.json()) as { items: { to: string[]; subject: string }[] }).items;
    };
    await expect.poll(async () => (await mailbox()).filter((m) => m.subject === subject).flatMap((m) => m.to).sort(), { timeout: 30_000 }).toEqual([recipients[0], recipients[1]]);
    expect((await mailbox()).some((m) => m.to.includes(recipients[2]!))).toBe(false);
  });

  it("without the editor's chunk (it failed to load) the source is edited in a plain text field, with the same sentence", async () => {
    const plain = await page.context().newPage();
    // The chunk that holds CodeMirror is the one script of the e-mails remote carrying its lint styles.
    await plain.route("**/remotes/dashboard-emails/*.js", async (route) => {
      const res = await route.fetch();
      const body = await res.text();
      if (body.includes("cm-lintRange")) await route.abort();
      else await route.fulfill({ response: res, body });
    });
    await plain.goto(`${url}${projectPath}/emails`);
    await plain.getByRole("tab", { name: "Templates" }).click();
    await plain.getByRole("button", { name: "Welcome" }).click();
    const field = plain.getByRole("textbox", { name: "TSX source" });
    await expect.poll(() => field.evaluate((el) => el.tagName)).toBe("TEXTAREA");
    await field.fill('export function EmailTemplate() {\n  return <p>{oops</p>;\n}');
    await plain.getByText("Line 2 does not compile").waitFor();
    await plain.close();
  });
});
