import { describe, expect, it } from "vitest";
import { passwordResetEmail, verificationEmail } from "./emails.ts";

describe("auth e-mails", () => {
  it("verification: subject, link in both bodies, HTML escaped", () => {
    const link = "https://app.example.com/handler/email-verification?x=1&code=abc";
    const mail = verificationEmail("Acme <Dev>", link);
    expect(mail.subject).toBe("Verify your email at Acme <Dev>");
    expect(mail.template).toBe("email_verification");
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
});
