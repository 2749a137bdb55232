import { describe, expect, it } from "vitest";
import { knownErrorSentence, schemaErrorSentence, schemaProblems, statusSentence } from "./plain-errors.ts";
import { ADMIN_AUDIENCE } from "./admin-audience.ts";

// The raw texts below are what the gateway really answers (issue 21 item 5 quotes them).
const BAD_EMAIL =
  "Request validation failed on POST /api/v1/users:\n  - body.primary_email must match the following: \"/^[^.]+(\\.[^.]+)*@.*\\.[^.][^.]+$/\"";
const GARBAGE_RESET = "Request validation failed on POST /api/v1/auth/password/reset:\n  - body.code must be exactly 45 characters";
const BAD_USER_ID = "Request validation failed on GET /api/v1/users/not-a-uuid:\n  - params.user_id must be a valid UUID";

describe("plain sentences for API errors", () => {
  it("reads the lines of a validation failure", () => {
    expect(schemaProblems(GARBAGE_RESET)).toEqual([{ location: "body", field: "code", rule: "must be exactly 45 characters" }]);
  });

  it("says what to do instead of quoting the rule", () => {
    expect(schemaErrorSentence(BAD_EMAIL)).toBe("Enter a valid e-mail address, like name@example.com.");
    expect(schemaErrorSentence(GARBAGE_RESET)).toBe("This link or code is not valid or is incomplete. Request a new one and use the latest.");
    expect(schemaErrorSentence(BAD_USER_ID)).toBe("This user does not exist. Check the link or pick it from the list.");
    for (const raw of [BAD_EMAIL, GARBAGE_RESET, BAD_USER_ID]) {
      const sentence = schemaErrorSentence(raw);
      expect(sentence).not.toMatch(/Request validation|body\.|params\.|must match|\/\^/);
    }
  });

  it("names the field for other rules and joins several problems", () => {
    const raw = "Request validation failed on PATCH /api/v1/teams/x:\n  - body.display_name must not be empty\n  - body.profile_image_url is not a valid URL";
    expect(schemaErrorSentence(raw)).toBe("Enter a name. Enter a valid URL, like https://example.com.");
    expect(schemaErrorSentence("Request validation failed on GET /api/v1/users:\n  - query.limit must be less than or equal to 1000")).toBe(
      "Ask for between 1 and 1000 rows at a time.",
    );
  });

  it("gives an admin the admin's wording for a duplicate user, and the end user the published text", () => {
    const published =
      'A user with email "a@example.com" already exists but the email is not verified. Please login to your existing account with the method you used to sign up, and then verify your email to sign in with this login method.';
    const details = { email: "a@example.com", would_work_if_email_was_verified: true };
    expect(knownErrorSentence("USER_EMAIL_ALREADY_EXISTS", published, details, ADMIN_AUDIENCE)).toBe(
      "A user with the e-mail address a@example.com already exists in this project.",
    );
    expect(knownErrorSentence("USER_EMAIL_ALREADY_EXISTS", published, details, "end-user")).toBeUndefined();
  });

  it("keeps known errors that are already plain", () => {
    expect(knownErrorSentence("EMAIL_PASSWORD_MISMATCH", "Wrong e-mail or password.", undefined, "end-user")).toBeUndefined();
  });

  it("turns statuses into sentences with the wait of a rate limit", () => {
    expect(statusSentence(429, "Too many attempts. Please wait 42 seconds and try again.", 42)).toBe("Too many attempts, try again in 42 s.");
    expect(statusSentence(500, "Internal Server Error", undefined)).toBe("Something went wrong on our side. Try again in a moment.");
    expect(statusSentence(400, "Invalid config: x", undefined)).toBe("Invalid config: x");
  });
});

describe("plain sentences for the teams area", () => {
  it("names no ids when a member or a permission is gone, for an admin", () => {
    const t = "0b6c2a4e-53a4-4f5e-9b1f-3b1a7f0c9d11";
    const u = "7d3e1f2a-1c2b-4d5e-8f9a-0b1c2d3e4f50";
    const membership = knownErrorSentence("TEAM_MEMBERSHIP_NOT_FOUND", `User ${u} is not found in team ${t}.`, { team_id: t, user_id: u }, ADMIN_AUDIENCE);
    expect(membership).toBe("This user is not a member of this team (any more).");
    const grant = knownErrorSentence("TEAM_PERMISSION_NOT_FOUND", `User ${u} does not have permission read in team ${t}.`, { team_id: t, user_id: u, permission_id: "read" }, ADMIN_AUDIENCE);
    expect(grant).toBe("This member does not hold that permission directly in this team (it may have been revoked already).");
    expect(knownErrorSentence("PERMISSION_NOT_FOUND", 'Permission "read" not found. Make sure you created it on the dashboard.', { permission_id: "read" }, ADMIN_AUDIENCE)).toBe(
      "The permission read does not exist (it may have been deleted). Reload the page to see the current permissions.",
    );
    expect(knownErrorSentence("PERMISSION_NOT_FOUND", "Permission not found.", undefined, ADMIN_AUDIENCE)).toMatch(/^This permission does not exist/);
    for (const sentence of [membership, grant]) expect(sentence).not.toMatch(/[0-9a-f]{8}-/);
  });
});
