import { describe, expect, it } from "vitest";
import { deleteTeamMessage } from "./team-detail.tsx";

describe("deleteTeamMessage", () => {
  it("says who loses what, in words that fit the member count", () => {
    expect(deleteTeamMessage("Ops", 0)).toBe("Ops and its pending invitations are deleted. This cannot be undone.");
    expect(deleteTeamMessage("Ops", 1)).toBe("Ops and its pending invitations are deleted. Its one member loses their membership and permissions in it; their account stays. This cannot be undone.");
    expect(deleteTeamMessage("Ops", 3)).toBe("Ops and its pending invitations are deleted. Its 3 members lose their membership and permissions in it; their accounts stay. This cannot be undone.");
    expect(deleteTeamMessage("Ops", undefined)).toContain("Its members lose");
  });
});
