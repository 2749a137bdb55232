/**
 * An HTTP error that is not a known error: a plain-text status answer of the server, or one the SDK raises itself.
 * 400-499 are client errors, everything else a server error. It serialises to its status, its message as the body and
 * a plain-text content type, so a server app can pass it straight on.
 */

/** The reason phrases of the statuses the SDK names (spec §8). */
export const STATUS_NAMES = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  423: "Locked",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
} as const;

export type NamedStatus = keyof typeof STATUS_NAMES;

export class StatusError extends Error {
  readonly statusCode: number;
  /** For a 429 (or 503) that carried `Retry-After`: the seconds the server asked to wait. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number | { statusCode: number; message: string }, message?: string, options: { retryAfterSeconds?: number } = {}) {
    const statusCode = typeof status === "number" ? status : status.statusCode;
    const text = message ?? (typeof status === "number" ? (STATUS_NAMES[status as NamedStatus] ?? `HTTP ${status}`) : status.message);
    super(text);
    this.name = "StatusError";
    this.statusCode = statusCode;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  isClientError(): boolean {
    return this.statusCode >= 400 && this.statusCode < 500;
  }

  isServerError(): boolean {
    return !this.isClientError();
  }

  getStatusCode(): number {
    return this.statusCode;
  }

  getBody(): Uint8Array {
    return new TextEncoder().encode(this.message);
  }

  getHeaders(): Record<string, string[]> {
    return { "content-type": ["text/plain; charset=utf-8"] };
  }

  toDescriptiveJson(): Record<string, unknown> {
    return { status_code: this.statusCode, message: this.message, headers: this.getHeaders() };
  }

  static isStatusError(value: unknown): value is StatusError {
    return value instanceof StatusError;
  }

  static readonly BadRequest = { statusCode: 400, message: STATUS_NAMES[400] } as const;
  static readonly Unauthorized = { statusCode: 401, message: STATUS_NAMES[401] } as const;
  static readonly PaymentRequired = { statusCode: 402, message: STATUS_NAMES[402] } as const;
  static readonly Forbidden = { statusCode: 403, message: STATUS_NAMES[403] } as const;
  static readonly NotFound = { statusCode: 404, message: STATUS_NAMES[404] } as const;
  static readonly MethodNotAllowed = { statusCode: 405, message: STATUS_NAMES[405] } as const;
  static readonly NotAcceptable = { statusCode: 406, message: STATUS_NAMES[406] } as const;
  static readonly RequestTimeout = { statusCode: 408, message: STATUS_NAMES[408] } as const;
  static readonly Conflict = { statusCode: 409, message: STATUS_NAMES[409] } as const;
  static readonly Gone = { statusCode: 410, message: STATUS_NAMES[410] } as const;
  static readonly PayloadTooLarge = { statusCode: 413, message: STATUS_NAMES[413] } as const;
  static readonly UnsupportedMediaType = { statusCode: 415, message: STATUS_NAMES[415] } as const;
  static readonly UnprocessableEntity = { statusCode: 422, message: STATUS_NAMES[422] } as const;
  static readonly Locked = { statusCode: 423, message: STATUS_NAMES[423] } as const;
  static readonly TooManyRequests = { statusCode: 429, message: STATUS_NAMES[429] } as const;
  static readonly InternalServerError = { statusCode: 500, message: STATUS_NAMES[500] } as const;
  static readonly NotImplemented = { statusCode: 501, message: STATUS_NAMES[501] } as const;
  static readonly BadGateway = { statusCode: 502, message: STATUS_NAMES[502] } as const;
  static readonly ServiceUnavailable = { statusCode: 503, message: STATUS_NAMES[503] } as const;
  static readonly GatewayTimeout = { statusCode: 504, message: STATUS_NAMES[504] } as const;
}
