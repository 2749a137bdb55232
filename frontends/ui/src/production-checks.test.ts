import { describe, expect, it } from "vitest";
import { productionModeChecks } from "./production-checks.ts";

describe("productionModeChecks (spec §5 production mode domain checks)", () => {
  it("passes a clean HTTPS setup", () => {
    expect(productionModeChecks({ allowLocalhost: false, domains: [{ domain: "https://app.example.com" }, { domain: "https://*.example.com" }] })).toEqual([]);
  });
  it("reports each problem with the spec's message", () => {
    const messages = productionModeChecks({
      allowLocalhost: true,
      domains: [{ domain: "not a url" }, { domain: "http://localhost:3000" }, { domain: "https://10.0.0.1" }, { domain: "http://app.example.com" }, { domain: "http://a.localhost" }],
    }).map((c) => c.message);
    expect(messages).toEqual([
      "Localhost is not allowed in production mode: turn off 'Allow localhost' on the Auth methods page",
      "Trusted domain is not a valid URL: not a url",
      "Localhost domains are not allowed to be trusted in production mode: http://localhost:3000",
      "Direct IPs are not valid for trusted domains in production mode: https://10.0.0.1",
      "Trusted domains should be HTTPS: http://app.example.com",
      "Localhost domains are not allowed to be trusted in production mode: http://a.localhost",
    ]);
  });
  it("treats 127.x as localhost, not as a bare IP", () => {
    expect(productionModeChecks({ allowLocalhost: false, domains: [{ domain: "https://127.0.0.2" }] })[0]!.message).toMatch(/^Localhost domains/);
  });
});
