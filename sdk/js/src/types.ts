/**
 * Public object types of the SDK. Names, fields and methods follow the published `@stackframe/js` API for this
 * contract, so code written against it type-checks against `@vestibule/js` after changing only the import.
 */
export type * from "./types/app.ts";
export type * from "./types/resources.ts";
export type * from "./types/users.ts";
export type * from "./types/admin.ts";
