import { describe, expect, it } from "vitest";
import { SERVICES as SHARED } from "@vestibule/shared/service";
import { SERVICES } from "../src/services.ts";

describe("deploy service table", () => {
  it("matches @vestibule/shared/service", () => {
    expect(SERVICES).toEqual(SHARED);
  });
});
