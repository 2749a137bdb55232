export {
  Base64,
  CallbackUrl,
  DisplayName,
  Email,
  FreeformObj,
  ImageUrl,
  JsonString,
  LooseEmail,
  Metadata,
  NonEmptyString,
  Nullable,
  Obj,
  OneOf,
  Optional,
  PAGE_LIMIT_MAX,
  PageLimit,
  Password,
  QueryBoolean,
  QueryInteger,
  Url,
  UserIdOrMe,
  Uuid,
} from "./fields.ts";
export type { FieldOptions, JsonValue } from "./fields.ts";
export { compileRequestValidator } from "./validator.ts";
export type {
  RequestInput,
  RequestSchemas,
  RequestValidationFailure,
  RequestValidationResult,
  RequestValidationSuccess,
  RequestValidator,
} from "./validator.ts";
export { formatValidationMessage, printValue } from "./messages.ts";
export { FORMATS, STRICT_EMAIL_PATTERN, isBase64, isEmail, isUrl, isUserIdOrMe, isUuid } from "./formats.ts";
