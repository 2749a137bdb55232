import { describe, expect, it } from "vitest";
import { invitationEmail } from "./emails.ts";

describe("invitation e-mails", () => {
  const code = "abcdefghjkmnpqrstvwxyz0123456789abcdefghjkmnp";

  it("travel in an e-mail with the link in both bodies, escaped in HTML", () => {
    const mail = invitationEmail({ teamDisplayName: "R&D <3", projectDisplayName: "Acme", link: `https://x.example.com/?a=1&code=${code}` });
    expect(mail.subject).toBe("You have been invited to join R&D <3");
    expect(mail.text).toContain(`https://x.example.com/?a=1&code=${code}`);
    expect(mail.html).toContain(`https://x.example.com/?a=1&amp;code=${code}`);
    expect(mail.html).toContain("R&amp;D &lt;3");
    expect(mail.html).not.toContain("<3");
    expect(mail.variables).toEqual({ team_display_name: "R&D <3", link: `https://x.example.com/?a=1&code=${code}`, project_display_name: "Acme" });
  });
});

describe("personal team ids", async () => {
  const { personalTeamId } = await import("./teams.ts");
  it("are version-5 UUIDs derived from project and user", () => {
    const a = personalTeamId("p1", "6F1C2D3E-4B5A-4C6D-8E7F-9A0B1C2D3E4F");
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(personalTeamId("p1", "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f")).toBe(a);
    expect(personalTeamId("p2", "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f")).not.toBe(a);
  });
});
