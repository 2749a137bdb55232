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
