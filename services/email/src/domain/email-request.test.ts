import { describe, expect, it } from "vitest";
import { checkRequest, newEmail, type EmailRequest } from "./email-request.ts";

const good: EmailRequest = {
  projectId: "internal",
  to: "  Alice@Example.COM ",
  subject: "Verify",
  html: "<p>hi</p>",
  text: "",
  template: "email_verification",
  userId: "",
  notificationCategory: "",
  variablesJson: '{"link":"https://x.example/?code=1"}',
};

describe("checkRequest and newEmail", () => {
  it("normalizes the address, defaults the category and reads the variables; a good request is queued", () => {
    const checked = checkRequest(good);
    expect(checked).toEqual({
      projectId: "internal",
      to: "alice@example.com",
      notificationCategory: "Transactional",
      variables: { link: "https://x.example/?code=1" },
      problems: [],
    });
    expect(newEmail(good, checked, { subject: "Verify", html: "<p>hi</p>", text: null })).toEqual({
      projectId: "internal",
      recipients: ["alice@example.com"],
      subject: "Verify",
      html: "<p>hi</p>",
      text: null,
      template: "email_verification",
      notificationCategory: "Transactional",
      userId: null,
      status: "queued",
      error: null,
    });
  });

  it("takes the project from the envelope when the payload has none", () => {
    expect(checkRequest({ ...good, projectId: "" }, "p1").projectId).toBe("p1");
  });

  it("records what cannot be sent as failed, with every reason, instead of throwing", () => {
    const req = { ...good, projectId: "", to: " ", notificationCategory: "Spam", variablesJson: "[1]" };
    const bad = newEmail(req, checkRequest(req), { subject: "x", html: null, text: null });
    expect(bad).toMatchObject({ status: "failed", recipients: [], notificationCategory: "Spam" });
    expect(bad.error).toBe(
      'Cannot send this e-mail: no project_id; no recipient address; unknown notification category "Spam" (expected Transactional or Marketing); variables_json is not a JSON object; neither html nor text.',
    );
    const nowhere = { ...good, to: "not an address", variablesJson: "{" };
    expect(newEmail(nowhere, checkRequest(nowhere), { subject: "x", html: "y", text: null })).toMatchObject({
      status: "failed",
      recipients: ["not an address"],
      error: 'Cannot send this e-mail: invalid recipient address "not an address"; variables_json is not valid JSON.',
    });
  });
});
