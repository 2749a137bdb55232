import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { EmailRequestedSchema } from "@vestibule/proto/auth/v1/events";
import { emailFromRequest } from "./email-request.ts";

const good = create(EmailRequestedSchema, {
  projectId: "internal",
  to: "  Alice@Example.COM ",
  subject: "Verify",
  html: "<p>hi</p>",
  text: "",
  template: "email_verification",
  userId: "",
});

describe("emailFromRequest", () => {
  it("is sent at once in development and queued in production", () => {
    expect(emailFromRequest(good, { mode: "development" })).toEqual({
      projectId: "internal",
      recipients: ["alice@example.com"],
      subject: "Verify",
      html: "<p>hi</p>",
      text: null,
      template: "email_verification",
      notificationCategory: "Transactional",
      userId: null,
      status: "sent",
      error: null,
      attempts: 1,
    });
    expect(emailFromRequest(good, { mode: "production" })).toMatchObject({ status: "queued", error: null, attempts: 0 });
  });

  it("takes the project from the envelope when the payload has none", () => {
    expect(emailFromRequest({ ...good, projectId: "" }, { mode: "development", envelopeProjectId: "p1" }).projectId).toBe("p1");
  });

  it("records what cannot be sent as failed, with every reason, instead of throwing", () => {
    const bad = emailFromRequest({ ...good, projectId: "", to: " ", html: "", notificationCategory: "Spam" }, { mode: "development" });
    expect(bad).toMatchObject({ status: "failed", attempts: 0, recipients: [], notificationCategory: "Spam" });
    expect(bad.error).toBe(
      'Cannot send this e-mail: no project_id; no recipient address; neither html nor text; unknown notification category "Spam" (expected Transactional or Marketing).',
    );
    expect(emailFromRequest({ ...good, to: "not an address" }, { mode: "production" })).toMatchObject({
      status: "failed",
      recipients: ["not an address"],
      error: 'Cannot send this e-mail: invalid recipient address "not an address".',
    });
    expect(emailFromRequest({ ...good, notificationCategory: "Marketing" }, { mode: "development" }).status).toBe("sent");
  });
});
