import { createPool, type Pool } from "@vestibule/shared/db";
import type { ServiceContext } from "@vestibule/shared/service";

/**
 * Connections whose planner is pinned to one access path for user search (see SEARCH_SAMPLE in user-store.ts):
 * `walk` can only walk b-tree indexes in order, `trigram` can only use bitmap index scans (the trigram index). Pinning
 * per connection costs nothing per query, where `SET LOCAL` in a transaction would add three round trips.
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
  });
}

export function createSearchPools(ctx: ServiceContext): SearchPools {
  const walk = pinnedPool(ctx, { enable_seqscan: "off", enable_bitmapscan: "off" });
  const trigram = pinnedPool(ctx, { enable_seqscan: "off", enable_indexscan: "off" });
  return {
    walk,
    trigram,
    async end() {
      await Promise.all([walk.end(), trigram.end()]);
    },
  };
}
