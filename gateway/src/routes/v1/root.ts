import { Obj } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";

/** `GET /api/v1`: a plain-text welcome that says what the request's headers authenticate as. */
export const rootRoute = defineRoute({
  method: "GET",
  path: "",
  summary: "Welcome text with the authentication the request's headers carry",
  tags: ["Meta"],
  access: "none",
  schemas: { query: Obj({}) },
  async handler({ auth }) {
    const lines = ["Welcome to the Vestibule API endpoint! Please refer to the documentation at /api/v1/openapi.json.", ""];
    if (!auth) {
      lines.push("Authentication: None");
    } else {
      lines.push(`Authentication: ${auth.type[0]!.toUpperCase()}${auth.type.slice(1)}`);
      lines.push(`  Project: ${auth.projectId}`);
      lines.push(`  User: ${auth.user?.id ?? "None"}`);
    }
    return { text: lines.join("\n") };
  },
});

/**
 * `GET /api/v1/internal/backend-urls` (latest-sdk.md A7): the current SDK, when its base URL comes from the
 * environment, asks once per process which API base URLs to use, with no headers. Vestibule has one: its public URL.
 */
export const backendUrlsRoute = defineRoute({
  method: "GET",
  path: "/internal/backend-urls",
  summary: "The API base URLs SDKs should use",
  tags: ["Meta"],
  access: "none",
  schemas: { query: Obj({}) },
  async handler({ config }) {
    return { json: { urls: [config.publicUrl.replace(/\/+$/, "")] } };
  },
});
