import { describe, expect, it } from "vitest";
import { hostedProjectId } from "./hosted-path.ts";
import { PAGES } from "./handler-pages.tsx";

const ID = "0b7d3c1e-5f2a-4c8e-9d61-2a4f6e8b0c13";

describe("hostedProjectId", () => {
  it("reads the project of /handler/<project-id>/<page>, with or without a page or trailing slash", () => {
    expect(hostedProjectId(`/handler/${ID}/sign-in`)).toBe(ID);
    expect(hostedProjectId(`/handler/${ID}/purchase/abc_123`)).toBe(ID);
    expect(hostedProjectId(`/handler/${ID}`)).toBe(ID);
    expect(hostedProjectId(`/handler/${ID}/`)).toBe(ID);
    expect(hostedProjectId(`/handler/${ID.toUpperCase()}/sign-up`)).toBe(ID.toUpperCase());
    expect(hostedProjectId("/handler/internal/account-settings")).toBe("internal");
  });

  it("gives null for the configured project's pages: every page name, the bare handler path", () => {
    for (const page of Object.keys(PAGES)) expect(hostedProjectId(`/handler/${page}`), page).toBeNull();
    expect(hostedProjectId("/handler/purchase/abc_123")).toBeNull();
    expect(hostedProjectId("/handler")).toBeNull();
    expect(hostedProjectId("/handler/")).toBeNull();
  });

  it("gives null for what only looks like a project id: too short, extra characters, another mount path", () => {
    expect(hostedProjectId(`/handler/${ID.slice(0, -1)}/sign-in`)).toBeNull();
    expect(hostedProjectId(`/handler/${ID}x/sign-in`)).toBeNull();
    expect(hostedProjectId(`/handler/internals/sign-in`)).toBeNull();
    expect(hostedProjectId(`/example/handler/${ID}/sign-in`)).toBeNull();
    expect(hostedProjectId(`/handler/${ID.replaceAll("-", "")}/sign-in`)).toBeNull();
  });
});
