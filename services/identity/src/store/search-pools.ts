import { createPool, type Pool } from "@vestibule/shared/db";
import type { ServiceContext } from "@vestibule/shared/service";

/**
 * Connections whose planner is pinned to one access path for user search (see SEARCH_SAMPLE in user-store.ts):
 * `walk` can only walk b-tree indexes in order, `trigram` can only use bitmap index scans (the trigram index). Pinning
 * per connection costs nothing per query, where `SET LOCAL` in a transaction would add three round trips. Their
 * statements are prepared and planned generically once per connection (`plan_cache_mode`): the access path is pinned,
 * so a custom plan per search term would only add planning time.
 */
export interface SearchPools {
  readonly walk: Pool;
  readonly trigram: Pool;
  end(): Promise<void>;
}

function pinnedPool(ctx: ServiceContext, sessionSettings: Record<string, string>): Pool {
  return createPool({
    connectionString: ctx.config.databaseUrl,
    schema: ctx.schema,
    max: 3,
    applicationName: `vestibule-${ctx.schema}-search`,
    sessionSettings,
    log: ctx.log,
  });
}

export function createSearchPools(ctx: ServiceContext): SearchPools {
  const walk = pinnedPool(ctx, { enable_seqscan: "off", enable_bitmapscan: "off", plan_cache_mode: "force_generic_plan" });
  const trigram = pinnedPool(ctx, { enable_seqscan: "off", enable_indexscan: "off", plan_cache_mode: "force_generic_plan" });
  return {
    walk,
    trigram,
    async end() {
      await Promise.all([walk.end(), trigram.end()]);
    },
  };
}
