import type { Client } from "@connectrpc/connect";
import { UserService } from "@vestibule/proto/identity/v1/user_service";
import { TeamService } from "@vestibule/proto/teams_permissions/v1/team_service";
import { AccessType } from "@vestibule/proto/teams_permissions/v1/team";
import { LoadingCache } from "@vestibule/shared/cache";
import { fromConnectError, isKnownError, knownError } from "@vestibule/shared/errors";
import { createServiceClient } from "@vestibule/shared/rpc";
import { peerUrl, type ServiceContext } from "@vestibule/shared/service";
import type { CustomerType } from "../offers/offer-rules.ts";

/**
 * Whether a user or team customer exists, asked of its owning service (identity users, teams-permissions teams):
 * USER_NOT_FOUND / TEAM_NOT_FOUND otherwise (contract errors.md: not CUSTOMER_DOES_NOT_EXIST). Custom customers are
 * free-form ids. A customer found is remembered for `ttlMs` (item reads are hot; a deleted customer's quantity is
 * harmless to read for that long), a missing one is not.
 */
export class Customers {
  private readonly known: LoadingCache<true>;
  private readonly users: Client<typeof UserService>;
  private readonly teams: Client<typeof TeamService>;

  constructor(ctx: Pick<ServiceContext, "env" | "config">, ttlMs = 30_000) {
    const base = { caller: "billing", secret: ctx.config.serviceSecret };
    this.users = createServiceClient(UserService, { ...base, baseUrl: peerUrl("identity", ctx.env) });
    this.teams = createServiceClient(TeamService, { ...base, baseUrl: peerUrl("teams_permissions", ctx.env) });
    this.known = new LoadingCache((key) => this.check(key), { ttlMs, maxEntries: 50_000 });
  }

  async require(projectId: string, type: CustomerType, id: string): Promise<void> {
    if (type === "custom") return;
    await this.known.get(`${projectId}\u0000${type}\u0000${id}`);
  }

  private async check(key: string): Promise<true> {
    const [projectId, type, id] = key.split("\u0000") as [string, CustomerType, string];
    if (type === "user") {
      try {
        const { user } = await this.users.getUser({ projectId, userId: id });
        if (user) return true;
      } catch (err) {
        const e = fromConnectError(err);
        if (!isKnownError(e, "USER_NOT_FOUND") && !isKnownError(e, "USER_ID_DOES_NOT_EXIST")) throw err;
      }
      throw knownError("USER_NOT_FOUND");
    }
    try {
      const { team } = await this.teams.getTeam({ projectId, teamId: id, caller: { accessType: AccessType.SERVER } });
      if (team) return true;
    } catch (err) {
      if (!isKnownError(fromConnectError(err), "TEAM_NOT_FOUND")) throw err;
    }
    throw knownError("TEAM_NOT_FOUND", { team_id: id });
  }
}
