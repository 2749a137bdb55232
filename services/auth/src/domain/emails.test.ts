import { describe, expect, it } from "vitest";
import { magicLinkEmail, passwordResetEmail, verificationEmail } from "./emails.ts";

describe("auth e-mails", () => {
  it("verification: subject, link in both bodies, HTML escaped", () => {
    const link = "https://app.example.com/handler/email-verification?x=1&code=abc";
    const mail = verificationEmail("Acme <Dev>", link);
    expect(mail.subject).toBe("Verify your email at Acme <Dev>");
    expect(mail.template).toBe("email_verification");
    expect(mail.variables).toEqual({ link });
    expect(mail.text).toContain(link);
    expect(mail.html).toContain('href="https://app.example.com/handler/email-verification?x=1&amp;code=abc"');
    expect(mail.html).toContain("Acme &lt;Dev&gt;");
    expect(mail.html).not.toContain("<Dev>");
  });

  it("password reset", () => {
    const mail = passwordResetEmail("Acme", "https://a.com/reset?code=xyz");
    expect(mail.subject).toBe("Reset your password at Acme");
    expect(mail.template).toBe("password_reset");
    expect(mail.text).toContain("https://a.com/reset?code=xyz");
    expect(mail.html).toContain("https://a.com/reset?code=xyz");
  });

  it("magic link: the contract's subject with the OTP, the variables for the project's template", () => {
    const mail = magicLinkEmail("Acme", "https://a.com/magic?code=abc", "ABC123");
    expect(mail.subject).toBe("Sign in to Acme: Your code is ABC123");
    expect(mail.template).toBe("magic_link");
    expect(mail.variables).toEqual({ link: "https://a.com/magic?code=abc", otp: "ABC123" });
    expect(mail.text).toContain("ABC123");
    expect(mail.text).toContain("https://a.com/magic?code=abc");
  });
});
