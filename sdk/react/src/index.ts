/**
 * @vestibule/react: React 19 bindings of the Vestibule SDK. Wrap the app in `<StackProvider app={app}>` (and a
 * `<Suspense>`), then read data with the hooks; `<UserButton/>` is the user menu.
 */
export { MISSING_SUSPENSE_MESSAGE, MissingSuspenseBoundaryError, PROVIDER_MISSING_MESSAGE, StackProvider, VestibuleProvider, useStackApp, useVestibuleApp } from "./provider.tsx";
export type { StackProviderProps } from "./provider.tsx";
export {
  useActiveSessions,
  useContactChannels,
  useItem,
  usePermission,
  usePermissions,
  useProject,
  useResource,
  useTeam,
  useTeams,
  useUser,
} from "./hooks.ts";
export { Avatar, AVATAR_SIZE, ICON_SIZE_RATIO, INITIALS_FONT_RATIO, avatarInitials } from "./avatar.tsx";
export type { AvatarUser } from "./avatar.tsx";
export {
  MENU_TEXT,
  NOT_SIGNED_IN_LABEL,
  POINTER_GRACE_MS,
  SUBMENU_OPEN_DELAY_MS,
  TYPEAHEAD_RESET_MS,
  UserButton,
  UserButtonSkeleton,
} from "./user-button.tsx";
export type { UserButtonItem, UserButtonProps } from "./user-button.tsx";
export { OAuthCallback } from "./oauth-callback.tsx";
