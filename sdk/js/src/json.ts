/** A JSON object as the wire gives it (the SDK's mappers read fields off it). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;
