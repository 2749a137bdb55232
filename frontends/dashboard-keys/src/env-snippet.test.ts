import { describe, expect, it } from "vitest";
import { envSnippet } from "./env-snippet.ts";

const keys = { projectId: "p-1", apiUrl: "https://api.example.com", publishableClientKey: "pck_1", secretServerKey: "ssk_1", superSecretAdminKey: null };

describe("the .env snippet of new API keys (issue 21)", () => {
  it("uses the variable names the SDK reads in a Next.js app", () => {
    expect(envSnippet("nextjs", keys)).toBe(
      "NEXT_PUBLIC_STACK_API_URL=https://api.example.com\nNEXT_PUBLIC_STACK_PROJECT_ID=p-1\nNEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY=pck_1\nSTACK_SECRET_SERVER_KEY=ssk_1\n",
    );
  });

  it("uses STACK_* on a Node.js server, with the admin key when one was made", () => {
    expect(envSnippet("node", { ...keys, superSecretAdminKey: "sak_1", apiUrl: null })).toBe(
      "STACK_PROJECT_ID=p-1\nSTACK_PUBLISHABLE_CLIENT_KEY=pck_1\nSTACK_SECRET_SERVER_KEY=ssk_1\nSTACK_SUPER_SECRET_ADMIN_KEY=sak_1\n",
    );
  });

  it("never writes a secret key for a Vite app", () => {
    const vite = envSnippet("vite", keys);
    expect(vite).toContain("VITE_STACK_PUBLISHABLE_CLIENT_KEY=pck_1");
    expect(vite).not.toContain("ssk_1");
  });
});
