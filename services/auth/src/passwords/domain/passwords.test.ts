import { describe, expect, it } from "vitest";
import { isKnownError } from "@vestibule/shared/errors";
import { passwordHashKind, passwordProblem } from "./passwords.ts";

describe("password rules", () => {
  it("8 to 70 characters", () => {
    const short = passwordProblem("1234567");
    expect(isKnownError(short, "PASSWORD_TOO_SHORT") && short.details).toEqual({ min_length: 8 });
    expect(short?.message).toBe("Password too short. Minimum length is 8.");
    expect(passwordProblem("12345678")).toBeNull();
    expect(passwordProblem("x".repeat(70))).toBeNull();
    const long = passwordProblem("x".repeat(71));
    expect(isKnownError(long, "PASSWORD_TOO_LONG") && long.details).toEqual({ maxLength: 70 });
    expect(long?.message).toBe("Password too long. Maximum length is 70.");
  });
});

describe("password hash formats", () => {
  it("recognises bcrypt and argon2id, nothing else", () => {
    expect(passwordHashKind("$2a$10$VIhIOofSMqGdGlL4wzE//e.77dAQGqNtF/1dT7bqCrVtQuInWy2qi")).toBe("bcrypt");
    expect(passwordHashKind("$2b$12$VIhIOofSMqGdGlL4wzE//e.77dAQGqNtF/1dT7bqCrVtQuInWy2qi")).toBe("bcrypt");
    expect(passwordHashKind("$2y$04$VIhIOofSMqGdGlL4wzE//e.77dAQGqNtF/1dT7bqCrVtQuInWy2qi")).toBe("bcrypt");
    expect(passwordHashKind("$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$4lR2ZbXvQp1QK8l2B0OqX1m8Q4s7rWcC0m7bJb0jv7E")).toBe("argon2id");
    expect(passwordHashKind("$2x$10$VIhIOofSMqGdGlL4wzE//e.77dAQGqNtF/1dT7bqCrVtQuInWy2qi")).toBeUndefined();
    expect(passwordHashKind("$2a$10$short")).toBeUndefined();
    expect(passwordHashKind("$argon2i$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNoaGFzaA")).toBeUndefined();
    expect(passwordHashKind("$1$abc$def")).toBeUndefined();
    expect(passwordHashKind("plaintext")).toBeUndefined();
    expect(passwordHashKind("")).toBeUndefined();
  });
});
