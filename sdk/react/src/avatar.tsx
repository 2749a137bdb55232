/**
 * The round avatar of the user menu: the profile image, else the first two letters of the display name or primary
 * e-mail in upper case, else a generic person icon. Default size 34; letters are 0.4 of the size, the icon 0.6.
 */
import { useState } from "react";

export const AVATAR_SIZE = 34;
export const INITIALS_FONT_RATIO = 0.4;
export const ICON_SIZE_RATIO = 0.6;

export interface AvatarUser {
  readonly displayName?: string | null;
  readonly primaryEmail?: string | null;
  readonly profileImageUrl?: string | null;
}

/** First two letters of the display name, else of the primary e-mail, upper case; null when neither exists. */
export function avatarInitials(user: AvatarUser | null): string | null {
  const source = user?.displayName?.trim() || user?.primaryEmail?.trim() || "";
  const letters = [...source].slice(0, 2).join("");
  return letters ? letters.toUpperCase() : null;
}

export function Avatar({ user, size = AVATAR_SIZE }: { user: AvatarUser | null; size?: number }) {
  const [failedUrl, setFailedUrl] = useState<string | null>(null);
  const image = user?.profileImageUrl && user.profileImageUrl !== failedUrl ? user.profileImageUrl : null;
  const initials = avatarInitials(user);
  const box = { width: size, height: size };
  if (image) {
    return (
      <span className="vst-avatar" style={box} data-avatar="image">
        <img src={image} alt="" width={size} height={size} onError={() => setFailedUrl(image)} />
      </span>
    );
  }
  if (initials) {
    return (
      <span className="vst-avatar" style={{ ...box, fontSize: size * INITIALS_FONT_RATIO }} data-avatar="initials">
        {initials}
      </span>
    );
  }
  const icon = size * ICON_SIZE_RATIO;
  return (
    <span className="vst-avatar" style={box} data-avatar="icon">
      <svg width={icon} height={icon} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
        <path d="M20 21v-2a4 4 0 0 0-4-4H8a4 4 0 0 0-4 4v2" />
        <circle cx="12" cy="7" r="4" />
      </svg>
    </span>
  );
}
