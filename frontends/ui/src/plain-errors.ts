/**
 * Plain sentences for what the API says in developer terms (issue 21 item 5): a request-validation failure
 * ("Request validation failed on POST /api/v1/users: - body.primary_email must match /^[^.]+…/") becomes "Enter a
 * valid e-mail address."; a known error written for end users gets the wording for an admin when an admin reads it;
 * a rate limit becomes "Too many attempts, try again in N s."; a server failure a sentence rather than a status text.
 *
 * Pure functions of (error code, message, details, audience), so the table is unit-tested without a browser.
 */

/** Sentences for known errors, by code, built from the error's details. */
export type Wording = Readonly<Record<string, (details: Record<string, unknown>) => string>>;

/**
 * Who reads the message: an end user on a hosted page, or a project owner in the dashboard, with the admin wording
 * (admin-audience.ts: only the dashboard shell imports it, so hosted pages do not download the admin's sentences).
 */
export type ErrorAudience = "end-user" | { readonly reader: "admin"; readonly wording: Wording };

export interface SchemaProblem {
  /** `body`, `query`, `params`, `headers`, `auth`, ... */
  readonly location: string;
  /** The field path inside it, e.g. `primary_email` or `config.domains.0`; "" for the location itself. */
  readonly field: string;
  /** The rest of the line: "must be defined", "must be a valid email", ... */
  readonly rule: string;
}

/** The lines of a SCHEMA_ERROR message ("  - body.code must be exactly 45 characters"). */
export function schemaProblems(message: string): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const raw of message.split("\n")) {
    const line = raw.trim();
    if (!line.startsWith("- ")) continue;
    const match = /^- ([a-z_]+)(?:\.([^\s]+))?\s+(.*)$/i.exec(line);
    if (!match) continue;
    problems.push({ location: match[1]!, field: match[2] ?? "", rule: match[3]! });
  }
  return problems;
}

const EMAIL_FIELDS = /(^|[._])(primary_)?email$|contact_channel|^value$/;
const CODE_FIELDS = /(^|[._])code$|full_code|attempt_code|token$/;
const PASSWORD_FIELDS = /password/;
const URL_FIELDS = /url$|base_url|callback|domain/;
const NAME_FIELDS = /display_name|name$/;

const RESOURCE_OF_PARAM: Readonly<Record<string, string>> = {
  user_id: "user",
  team_id: "team",
  api_key_id: "API key",
  id: "item",
  session_id: "session",
  permission_id: "permission",
  contact_channel_id: "contact channel",
};

function isMissing(rule: string): boolean {
  return /must be defined|must not be empty|is a required field|must not be null/.test(rule);
}

function humanise(field: string): string {
  const last = field.split(".").filter((part) => !/^\d+$/.test(part)).pop() ?? field;
  const words = last.replaceAll("_", " ").trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : "This value";
}

/** One plain sentence for one validation problem. */
export function sentenceForProblem(problem: SchemaProblem): string {
  const { location, field, rule } = problem;
  if (location === "params") {
    const resource = RESOURCE_OF_PARAM[field] ?? "item";
    return `This ${resource} does not exist. Check the link or pick it from the list.`;
  }
  if (location === "query" && field === "limit") return "Ask for between 1 and 1000 rows at a time.";
  if (location === "auth") return "You need to be signed in for this. Sign in and try again.";
  if (location === "headers") return "This page sent an incomplete request. Reload the page and try again.";
  if (PASSWORD_FIELDS.test(field)) {
    if (isMissing(rule)) return "Enter a password.";
    const max = /at most (\d+)/.exec(rule);
    if (max) return `The password is too long: at most ${max[1]} characters.`;
    return "This password cannot be used. Choose another one.";
  }
  if (EMAIL_FIELDS.test(field)) return isMissing(rule) ? "Enter an e-mail address." : "Enter a valid e-mail address, like name@example.com.";
  if (CODE_FIELDS.test(field)) return "This link or code is not valid or is incomplete. Request a new one and use the latest.";
  if (URL_FIELDS.test(field)) return isMissing(rule) ? "Enter a URL." : "Enter a valid URL, like https://example.com.";
  const label = humanise(field);
  if (NAME_FIELDS.test(field) && isMissing(rule)) return "Enter a name.";
  if (isMissing(rule)) return `${label} is required.`;
  const max = /at most (\d+) (characters|items)/.exec(rule);
  if (max) return `${label} is too long: at most ${max[1]} ${max[2]}.`;
  const min = /at least (\d+) (characters|items)/.exec(rule);
  if (min) return `${label} is too short: at least ${min[1]} ${min[2]}.`;
  const oneOf = /one of the following values: (.*)$/.exec(rule);
  if (oneOf) return `${label} must be one of: ${oneOf[1]!.replace(/\.$/, "")}.`;
  if (/integer|number/.test(rule)) return `${label} must be a whole number.`;
  return `${label} is not valid.`;
}

/** The sentence for a whole SCHEMA_ERROR: its distinct problems' sentences, in order. */
export function schemaErrorSentence(message: string): string {
  const sentences = [...new Set(schemaProblems(message).map(sentenceForProblem))];
  return sentences.length > 0 ? sentences.join(" ") : "Some of what you entered is not valid. Check the fields and try again.";
}

/** Codes whose plain sentence is the same for everybody. */
const EVERYONE_WORDING: Wording = {
  // One text for e-mailed links and typed codes: the same error answers both.
  VERIFICATION_CODE_NOT_FOUND: () => "This code or link is not valid. It may have been mistyped or replaced by a newer one.",
  VERIFICATION_CODE_EXPIRED: () => "This code or link has expired. Request a new one.",
  VERIFICATION_CODE_ALREADY_USED: () => "This code or link has already been used.",
  BODY_PARSING_ERROR: () => "This page sent a request the server could not read. Reload the page and try again.",
};

/** The plain sentence for a known error, or undefined to keep its own (already plain) message. */
export function knownErrorSentence(code: string, message: string, details: unknown, audience: ErrorAudience): string | undefined {
  const d = typeof details === "object" && details !== null ? (details as Record<string, unknown>) : {};
  if (code === "SCHEMA_ERROR") return schemaErrorSentence(message);
  if (audience !== "end-user" && audience.wording[code]) return audience.wording[code]!(d);
  return EVERYONE_WORDING[code]?.(d);
}

/** The sentence for a plain-status failure (no known error). */
export function statusSentence(statusCode: number, message: string, retryAfterSeconds: number | undefined): string {
  if (statusCode === 429) return rateLimitSentence(retryAfterSeconds);
  if (statusCode >= 500) return "Something went wrong on our side. Try again in a moment.";
  if (statusCode === 404) return "This was not found. It may have been deleted.";
  if (statusCode === 413) return "This is too large to send.";
  // Other 4xx plain texts are the contract's own sentences (e.g. "Invalid config: ...").
  return message;
}

export function rateLimitSentence(seconds: number | undefined): string {
  return seconds && seconds > 0 ? `Too many attempts, try again in ${seconds} s.` : "Too many attempts, try again in a moment.";
}
