/** Package identity sent as `x-stack-client-version` (`<platform> <sdk>@<semver>`, headers-and-auth.md §2). */
export const SDK_NAME = "@vestibule/js";
export const SDK_VERSION = "0.1.0";
export const CLIENT_VERSION = `js ${SDK_NAME}@${SDK_VERSION}`;
