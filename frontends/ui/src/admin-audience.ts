/**
 * The dashboard's reader of error sentences (`<ErrorAudienceProvider audience={ADMIN_AUDIENCE}>` in the shell):
 * known errors whose published text speaks to the person signing in, or names ids the owner already sees, get the
 * wording for a project owner. A module of its own, outside the UI kit's index (an MF singleton shared whole), so
 * hosted pages such as the sign-in page do not download these sentences.
 */
import type { ErrorAudience, Wording } from "./plain-errors.ts";

const ADMIN_WORDING: Wording = {
  USER_EMAIL_ALREADY_EXISTS: (d) => `A user with the e-mail address ${typeof d.email === "string" ? d.email : "you entered"} already exists in this project.`,
  USER_NOT_FOUND: () => "This user does not exist (it may have been deleted).",
  TEAM_NOT_FOUND: () => "This team does not exist (it may have been deleted).",
  // The published texts name both ids ("User <uuid> is not found in team <uuid>."); the owner sees the team already.
  TEAM_MEMBERSHIP_NOT_FOUND: () => "This user is not a member of this team (any more).",
  TEAM_PERMISSION_NOT_FOUND: () => "This member does not hold that permission directly in this team (it may have been revoked already).",
  // "Make sure you created it on the dashboard" tells the owner to do what they are doing.
  PERMISSION_NOT_FOUND: (d) =>
    `${typeof d.permission_id === "string" ? `The permission ${d.permission_id}` : "This permission"} does not exist (it may have been deleted). Reload the page to see the current permissions.`,
  CANNOT_GET_OWN_USER_WITHOUT_USER: () => "Your dashboard session has ended. Sign in again.",
  INVALID_ADMIN_ACCESS_TOKEN: () => "Your dashboard session has ended. Sign in again.",
  ADMIN_ACCESS_TOKEN_EXPIRED: () => "Your dashboard session has ended. Sign in again.",
};

export const ADMIN_AUDIENCE: ErrorAudience = { reader: "admin", wording: ADMIN_WORDING };
