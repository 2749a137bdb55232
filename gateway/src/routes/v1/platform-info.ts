import { Type } from "typebox";
import { statusError } from "@vestibule/shared/errors";
import { FreeformObj, Obj, Optional } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";

/**
 * Small endpoints the published SDKs and their dev tools call (issue 13): feature-support and version checks, and the
 * latest versions of the SDK-managed page components. No service state: answers are computed here.
 */

/** The newest `@stackframe/js` Vestibule is tested against (the compatibility suite's newest generation). */
export const NEWEST_KNOWN_SDK_VERSION = "2.8.108";

/**
 * The latest version of each SDK-managed page and its changelog, as the current SDK's dev tool expects from
 * `GET /api/latest/internal/component-versions` (the published `getLatestPageVersions()`; a test compares).
 */
const PAGES = [
  "signIn",
  "signUp",
  "signOut",
  "emailVerification",
  "passwordReset",
  "forgotPassword",
  "oauthCallback",
  "magicLinkCallback",
  "accountSettings",
  "teamInvitation",
  "cliAuthConfirm",
  "mfa",
  "error",
  "onboarding",
] as const;
export const COMPONENT_VERSIONS: Record<string, { version: number; changelogs: Record<string, string> }> = Object.fromEntries(
  PAGES.map((page) => [page, { version: 1, changelogs: { "1": "Initial version." } }]),
);

export const checkFeatureSupportRoute = defineRoute({
  method: "POST",
  path: "/check-feature-support",
  summary: "Tells an SDK that a feature it asked about is not supported (the SDK raises the text as an error)",
  tags: ["Meta"],
  access: "none",
  schemas: { body: Optional(FreeformObj({ name: Optional(Type.String()), feature_name: Optional(Type.String()) })) },
  async handler({ body }) {
    const feature = body?.feature_name ?? "This feature";
    return { text: `${feature} is not yet supported. Please reach out to the operators of this Vestibule deployment for more information.` };
  },
});

type Version = { major: number; minor: number; patch: number; pre: string | undefined };

/** A semantic version (x.y.z with an optional pre-release), else undefined. */
function parseVersion(v: string): Version | undefined {
  const m = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(v);
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), pre: m[4] } : undefined;
}

/** Negative when a < b (a pre-release sorts before its release; pre-releases compare as text). */
function compareVersions(a: Version, b: Version): number {
  const d = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (d !== 0) return d;
  if (a.pre === b.pre) return 0;
  if (a.pre === undefined) return 1;
  if (b.pre === undefined) return -1;
  return a.pre < b.pre ? -1 : 1;
}

/** The reference's verdicts on a client version against the newest known one (texts name Vestibule). */
export function checkVersion(clientVersion: string, newest = NEWEST_KNOWN_SDK_VERSION): { upToDate: true } | { upToDate: false; error: string; severe: boolean } {
  const client = parseVersion(clientVersion);
  const server = parseVersion(newest)!;
  if (!client) {
    return {
      upToDate: false,
      severe: true,
      error: `The client version you specified (v${clientVersion}) is not a valid semver version. Please update to the latest version as soon as possible to ensure that you get the latest feature and security updates.`,
    };
  }
  if (client.major !== server.major || client.minor !== server.minor) {
    return {
      upToDate: false,
      severe: true,
      error: `Your SDK version is severely outdated or unknown to this server (your version is v${clientVersion}; the newest version known to Vestibule is v${newest}).`,
    };
  }
  if (compareVersions(client, server) < 0) {
    return {
      upToDate: false,
      severe: false,
      error: `You are running an outdated SDK version (v${clientVersion}; the newest version known to Vestibule is v${newest}). Please update to get the latest feature and security updates.`,
    };
  }
  return { upToDate: true };
}

export const checkVersionRoute = defineRoute({
  method: "POST",
  path: "/check-version",
  summary: "Whether an SDK version is current: {upToDate} or {upToDate: false, error, severe}",
  tags: ["Meta"],
  access: "none",
  schemas: { body: Obj({ clientVersion: Type.String({ maxLength: 100 }) }) },
  async handler({ body }) {
    return { json: checkVersion(body.clientVersion) };
  },
});

export const componentVersionsRoute = defineRoute({
  method: "GET",
  path: "/internal/component-versions",
  summary: "Latest versions of the SDK-managed page components (the dev tool's outdated-page hints)",
  tags: ["Meta"],
  access: "none",
  schemas: {},
  async handler() {
    return { json: { versions: COMPONENT_VERSIONS } };
  },
});

const THREAD_ID = Type.String({ pattern: "^[A-Za-z0-9_-]{1,100}$" });

export const getAiChatRoute = defineRoute({
  method: "GET",
  path: "/internal/ai-chat/:thread_id",
  summary: "The stored messages of a dashboard AI-chat thread, oldest first (storage only; no model is called)",
  tags: ["AI chat (admin)"],
  access: ["admin"],
  schemas: { params: Obj({ thread_id: THREAD_ID }) },
  async handler({ auth, params, clients }) {
    const res = await clients.aiChat.listAiChatMessages({ projectId: auth.projectId, threadId: params.thread_id });
    return { json: { messages: res.messagesJson.map((m) => JSON.parse(m) as unknown) } };
  },
});

export const saveAiChatMessageRoute = defineRoute({
  method: "PATCH",
  path: "/internal/ai-chat/:thread_id",
  summary: "Append a message to a dashboard AI-chat thread (any JSON, at most 100 KB; 1,000 messages per thread)",
  tags: ["AI chat (admin)"],
  access: ["admin"],
  schemas: { params: Obj({ thread_id: THREAD_ID }), body: Obj({ message: Type.Unknown() }) },
  async handler({ auth, params, body, clients }) {
    if (body.message === undefined) throw statusError(400, "message must be defined.");
    await clients.aiChat.appendAiChatMessage({ projectId: auth.projectId, threadId: params.thread_id, messageJson: JSON.stringify(body.message) });
    return { json: {} };
  },
});
