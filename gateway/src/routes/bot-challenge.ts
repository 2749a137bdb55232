import { Type } from "typebox";
import { knownError, statusError } from "@vestibule/shared/errors";
import type { CachedProject } from "../auth/caches.ts";
import { Optional } from "../validation/index.ts";

/**
 * The current SDK's bot-challenge fields on password sign-up and OTP send-sign-in-code (latest-sdk.md B). Vestibule
 * has no challenge verifier (Turnstile or the like): a project that sets `auth.botChallenge.required` gets
 * BOT_CHALLENGE_REQUIRED there, whatever the client sends; other projects accept the fields and ignore them.
 */
export const botChallengeFields = {
  bot_challenge_token: Optional(Type.String({ maxLength: 4096 })),
  bot_challenge_phase: Optional(Type.Union([Type.Literal("invisible"), Type.Literal("visible")])),
  bot_challenge_unavailable: Optional(Type.Literal("true")),
};

export function checkBotChallenge(
  project: CachedProject,
  body: { bot_challenge_token?: string; bot_challenge_phase?: string; bot_challenge_unavailable?: string },
): void {
  if (body.bot_challenge_unavailable !== undefined && (body.bot_challenge_token !== undefined || body.bot_challenge_phase !== undefined)) {
    throw statusError(400, "bot_challenge_unavailable cannot be combined with a bot challenge token or phase");
  }
  const botChallenge = (project.renderedConfig.auth as { botChallenge?: { required?: unknown } } | undefined)?.botChallenge;
  if (botChallenge?.required === true) throw knownError("BOT_CHALLENGE_REQUIRED");
}
