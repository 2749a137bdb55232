/**
 * The sign-ups most browser tests start with: an end user on the hosted pages, and a project owner on the dashboard
 * who creates a first project.
 */
import type { Page } from "playwright-core";

/** Sets this file's e-mail addresses and names apart from other runs' on the same database server. */
export const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
/** The password of the accounts the tests sign up. */
export const PASSWORD = "correct-horse-battery-7";

/** Fills and sends a sign-up form (hosted `/handler/sign-up` or the dashboard's `/auth/sign-up`) at `signUpUrl`. */
export async function signUpWithPassword(page: Page, signUpUrl: string, email: string, password: string): Promise<void> {
  await page.goto(signUpUrl);
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Repeat password").fill(password);
  await page.getByRole("button", { name: "Sign up" }).click();
}

/** Signs a new owner up on the dashboard at `dashboardUrl` and creates a project; gives the project's path. */
export async function ownerWithProject(page: Page, dashboardUrl: string, email: string, password: string, projectName: string): Promise<string> {
  await signUpWithPassword(page, `${dashboardUrl}/auth/sign-up`, email, password);
  await page.getByRole("heading", { name: "Projects" }).waitFor();
  await page.getByLabel("Project name").fill(projectName);
  await page.getByRole("button", { name: "Create project" }).click();
  await page.waitForURL(/\/projects\/[0-9a-f-]{36}$/);
  return new URL(page.url()).pathname;
}
