/**
 * Admin project options → wire body, shared by the admin app (PATCH /internal/projects/current) and the internal
 * user's createProject (POST /internal/projects). Its own module: the client app cannot import the admin app at run
 * time (the admin app extends it).
 */
import type { Json } from "./json.ts";
import type { AdminProjectUpdateOptions } from "./types.ts";

const camelToSnake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Project update options → wire body (camelCase keys of config become snake_case; nested provider/domain fields too). */
export function projectUpdateBody(u: AdminProjectUpdateOptions): Json {
  const config = u.config
    ? Object.fromEntries(
        Object.entries(u.config).map(([k, v]) => {
          if (k === "domains") return ["domains", (v as { domain: string; handlerPath: string }[]).map((d) => ({ domain: d.domain, handler_path: d.handlerPath }))];
          if (k === "oauthProviders" || k === "emailConfig") {
            const conv = (o: Json) => Object.fromEntries(Object.entries(o).map(([kk, vv]) => [camelToSnake(kk), vv]));
            return [camelToSnake(k), Array.isArray(v) ? v.map(conv) : conv(v as Json)];
          }
          return [camelToSnake(k), v];
        }),
      )
    : undefined;
  return {
    display_name: u.displayName,
    description: u.description,
    is_production_mode: u.isProductionMode,
    logo_url: u.logoUrl,
    full_logo_url: u.fullLogoUrl,
    config,
  };
}
