import { describe, expect, it } from "vitest";
import { hostedOriginTrusted, hostedPageUrl } from "./hosted-urls.ts";

const ID = "0b7d3c1e-5f2a-4c8e-9d61-2a4f6e8b0c13";

describe("hostedPageUrl", () => {
  it("is /handler/<project-id>/<page> on the frontends origin", () => {
    expect(hostedPageUrl("http://localhost:8101", ID, "sign-in")).toBe(`http://localhost:8101/handler/${ID}/sign-in`);
    expect(hostedPageUrl("https://auth.example.com/", ID, "account-settings")).toBe(`https://auth.example.com/handler/${ID}/account-settings`);
  });
});

describe("hostedOriginTrusted", () => {
  it("trusts localhost only while the project allows localhost", () => {
    expect(hostedOriginTrusted({ allowLocalhost: true, domains: [] }, "http://localhost:8101")).toBe(true);
    expect(hostedOriginTrusted({ allowLocalhost: false, domains: [] }, "http://localhost:8101")).toBe(false);
  });

  it("trusts another origin when it is one of the trusted domains", () => {
    const settings = { allowLocalhost: true, domains: [{ domain: "https://auth.example.com" }, { domain: "not a url" }] };
    expect(hostedOriginTrusted(settings, "https://auth.example.com")).toBe(true);
    expect(hostedOriginTrusted(settings, "https://other.example.com")).toBe(false);
    expect(hostedOriginTrusted(settings, "http://auth.example.com")).toBe(false);
    expect(hostedOriginTrusted(settings, "https://auth.example.com:8443")).toBe(false);
  });

  it("reads wildcards as the API does: * within one label, ** across labels", () => {
    const one = { allowLocalhost: false, domains: [{ domain: "https://*.example.com" }] };
    expect(hostedOriginTrusted(one, "https://auth.example.com")).toBe(true);
    expect(hostedOriginTrusted(one, "https://a.b.example.com")).toBe(false);
    expect(hostedOriginTrusted(one, "https://authxexample.com")).toBe(false);
    const any = { allowLocalhost: false, domains: [{ domain: "https://**.example.com" }] };
    expect(hostedOriginTrusted(any, "https://a.b.example.com")).toBe(true);
  });
});
