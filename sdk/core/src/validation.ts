/**
 * Client-side checks of spec §5, with its messages, for forms (hosted pages, dashboard) to run before a request.
 * The server checks again; these only give faster, friendlier feedback. Each function returns null when the value is
 * fine, else the message to show.
 */

export const PASSWORD_MAX_LENGTH = 70;
export const EMAIL_MAX_LENGTH = 256;
export const DISPLAY_NAME_MAX_LENGTH = 256;
export const IMAGE_URL_MAX_LENGTH = 1_000_000;
/** Profile images must stay under 100 KB. */
export const PROFILE_IMAGE_MAX_BYTES = 100 * 1024;
export const ID_MAX_LENGTH = 63;
export const BRANCH_ID_MAX_LENGTH = 255;
export const SMTP_PORT_MIN = 0;
export const SMTP_PORT_MAX = 65_535;
/** Largest token expiry a client may ask for, and the spec's other fixed numbers of §9 that clients use. */
export const TOKEN_EXPIRY_REQUEST_MAX_MS = 60_000;

export const CURRENCY_DECIMALS = { USD: 2, EUR: 2, GBP: 2, INR: 2, AUD: 2, CAD: 2, JPY: 0 } as const;
export type Currency = keyof typeof CURRENCY_DECIMALS;
export const OAUTH_PROVIDER_TYPES = ["google", "github", "microsoft", "spotify", "facebook", "discord", "gitlab", "bitbucket", "linkedin", "apple", "x", "twitch"] as const;
export const SYSTEM_PERMISSIONS = ["$update_team", "$delete_team", "$read_members", "$remove_members", "$invite_members", "$manage_api_keys"] as const;
export const DURATION_UNITS = ["millisecond", "second", "minute", "hour", "day", "week", "month", "year"] as const;
export const INTERVAL_UNITS = ["day", "week", "month", "year"] as const;

export const VALIDATION_MESSAGES = {
  passwordTooLong: `Password too long. Maximum length is ${PASSWORD_MAX_LENGTH}.`,
  passwordsDoNotMatch: "Passwords do not match.",
  invalidEmail: "Please enter a valid e-mail address.",
  emailTooLong: `E-mail addresses have at most ${EMAIL_MAX_LENGTH} characters.`,
  displayNameTooLong: `Display names have at most ${DISPLAY_NAME_MAX_LENGTH} characters.`,
  invalidUrl: "Please enter a valid URL.",
  urlContainsSpaces: "URLs must not contain spaces.",
  imageUrlTooLong: `Image URLs have at most ${IMAGE_URL_MAX_LENGTH} characters.`,
  profileImageTooLarge: "Profile images must be smaller than 100KB.",
  branchIdEmpty: "Branch id must not be empty",
  branchIdTooLong: `Branch ids have at most ${BRANCH_ID_MAX_LENGTH} characters.`,
  moneyFormat: "Money amount must be in the format of <number> or <number>.<number>",
  tooManyDecimals: (currency: string, n: number) => `Too many decimals; ${currency} only has ${n} decimals`,
  moneyLeadingZeros: "Money amount must not have leading zeros",
  currencyRequired: "At least one currency is required",
  idFormat: `Must start with a letter or underscore, then letters, digits, underscores or hyphens (at most ${ID_MAX_LENGTH} characters)`,
  permissionIdChars: 'Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed',
  systemPermissionDollar: "System permissions must start with a dollar sign",
  invalidSystemPermission: "Invalid system permission",
  smtpPort: `Port must be between ${SMTP_PORT_MIN} and ${SMTP_PORT_MAX}`,
  tokenExpiryTooLong: `Token expiry requests are limited to ${TOKEN_EXPIRY_REQUEST_MAX_MS} ms`,
} as const;

export function checkPassword(password: string, confirmation?: string): string | null {
  if ([...password].length > PASSWORD_MAX_LENGTH) return VALIDATION_MESSAGES.passwordTooLong;
  if (confirmation !== undefined && confirmation !== password) return VALIDATION_MESSAGES.passwordsDoNotMatch;
  return null;
}

/** E-mail: local part without empty dot segments, @, a domain ending in a dot and at least 2 characters; ≤ 256. */
export function checkEmail(email: string): string | null {
  if (email.length > EMAIL_MAX_LENGTH) return VALIDATION_MESSAGES.emailTooLong;
  const at = email.lastIndexOf("@");
  if (at <= 0) return VALIDATION_MESSAGES.invalidEmail;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (!/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/.test(local)) return VALIDATION_MESSAGES.invalidEmail;
  if (!/^([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z0-9-]{2,}$/.test(domain)) return VALIDATION_MESSAGES.invalidEmail;
  return null;
}

export function checkDisplayName(name: string): string | null {
  return name.length > DISPLAY_NAME_MAX_LENGTH ? VALIDATION_MESSAGES.displayNameTooLong : null;
}

export function checkUrl(url: string, options: { image?: boolean } = {}): string | null {
  if (/\s/.test(url)) return VALIDATION_MESSAGES.urlContainsSpaces;
  if (options.image && url.length > IMAGE_URL_MAX_LENGTH) return VALIDATION_MESSAGES.imageUrlTooLong;
  try {
    new URL(url);
  } catch {
    return VALIDATION_MESSAGES.invalidUrl;
  }
  return null;
}

/** A profile image as a base64 data URL must decode to less than 100 KB. */
export function checkProfileImageDataUrl(dataUrl: string): string | null {
  const comma = dataUrl.indexOf(",");
  const b64 = comma >= 0 ? dataUrl.slice(comma + 1) : dataUrl;
  const bytes = Math.floor((b64.replace(/=+$/, "").length * 3) / 4);
  return bytes >= PROFILE_IMAGE_MAX_BYTES ? VALIDATION_MESSAGES.profileImageTooLarge : checkUrl(dataUrl, { image: true });
}

export function checkBranchId(id: string): string | null {
  if (id.length === 0) return VALIDATION_MESSAGES.branchIdEmpty;
  return id.length > BRANCH_ID_MAX_LENGTH ? VALIDATION_MESSAGES.branchIdTooLong : null;
}

/** Money amount: digits with optional decimals, no leading zeros, at most the currency's decimals. */
export function checkMoneyAmount(amount: string, currency: Currency): string | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!m) return VALIDATION_MESSAGES.moneyFormat;
  if (m[1]!.length > 1 && m[1]!.startsWith("0")) return VALIDATION_MESSAGES.moneyLeadingZeros;
  const decimals = CURRENCY_DECIMALS[currency];
  if ((m[2]?.length ?? 0) > decimals) return VALIDATION_MESSAGES.tooManyDecimals(currency, decimals);
  return null;
}

/** A price needs at least one currency amount. */
export function checkPriceCurrencies(amounts: Partial<Record<Currency, string>>): string | null {
  const entries = Object.entries(amounts).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return VALIDATION_MESSAGES.currencyRequired;
  for (const [currency, amount] of entries) {
    const problem = checkMoneyAmount(amount!, currency as Currency);
    if (problem) return problem;
  }
  return null;
}

/** Price, offer, group and item ids. */
export function checkId(id: string): string | null {
  return /^[A-Za-z_][A-Za-z0-9_-]{0,62}$/.test(id) ? null : VALIDATION_MESSAGES.idFormat;
}

/** Permission ids: custom ones lowercase/digits/":"/"_"; a leading "$" only for the system permissions. */
export function checkPermissionId(id: string, options: { system?: boolean } = {}): string | null {
  if (!/^\$?[a-z0-9_:]+$/.test(id)) return VALIDATION_MESSAGES.permissionIdChars;
  if (options.system && !id.startsWith("$")) return VALIDATION_MESSAGES.systemPermissionDollar;
  if (id.startsWith("$") && !(SYSTEM_PERMISSIONS as readonly string[]).includes(id)) return VALIDATION_MESSAGES.invalidSystemPermission;
  return null;
}

/** Durations: a non-negative integer and a unit (`"3 day"`, or `[3, "day"]`); intervals allow day/week/month/year. */
export function parseDuration(value: string | readonly [number, string], units: readonly string[] = DURATION_UNITS): [number, string] | null {
  const [n, unit] = typeof value === "string" ? (() => { const m = /^(\d+)\s*([a-z]+)$/.exec(value.trim()); return m ? [Number(m[1]), m[2]!] as const : [NaN, ""] as const; })() : value;
  return Number.isInteger(n) && n >= 0 && units.includes(unit) ? [n, unit] : null;
}

export function checkSmtpPort(port: number): string | null {
  return Number.isInteger(port) && port >= SMTP_PORT_MIN && port <= SMTP_PORT_MAX ? null : VALIDATION_MESSAGES.smtpPort;
}

export function checkTokenExpiryRequest(ms: number): string | null {
  return ms > TOKEN_EXPIRY_REQUEST_MAX_MS ? VALIDATION_MESSAGES.tokenExpiryTooLong : null;
}

// ---- production mode ---------------------------------------------------------------------------------------

export interface ProductionModeError {
  readonly message: string;
  /** Where to fix it (the dashboard's domains page). */
  readonly relativeFixUrl: string;
}

export function isLocalhostHost(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost") || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** The production-mode problems of a project's domain settings (shown before switching production mode on). */
export function productionModeErrors(project: { id: string; config: { allowLocalhost: boolean; domains: readonly { domain: string }[] } }): ProductionModeError[] {
  const fix = `/projects/${encodeURIComponent(project.id)}/domains`;
  const errors: ProductionModeError[] = [];
  if (project.config.allowLocalhost) {
    errors.push({ message: "Localhost is not allowed in production mode, turn off 'Allow localhost' in project settings", relativeFixUrl: fix });
  }
  for (const { domain } of project.config.domains) {
    let url: URL;
    try {
      url = new URL(domain);
    } catch {
      errors.push({ message: `Trusted domain is not a valid URL: ${domain}`, relativeFixUrl: fix });
      continue;
    }
    if (isLocalhostHost(url.hostname)) errors.push({ message: `Localhost domains are not allowed to be trusted in production mode: ${domain}`, relativeFixUrl: fix });
    else if (/^\d{1,3}(\.\d{1,3}){3}$/.test(url.hostname) || url.hostname.startsWith("[")) {
      errors.push({ message: `Direct IPs are not valid for trusted domains in production mode: ${domain}`, relativeFixUrl: fix });
    } else if (url.protocol !== "https:") errors.push({ message: `Trusted domains should be HTTPS: ${domain}`, relativeFixUrl: fix });
  }
  return errors;
}
