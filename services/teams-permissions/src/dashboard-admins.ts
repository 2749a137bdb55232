import type { Client } from "@connectrpc/connect";
import { ItemService } from "@vestibule/proto/billing/v1/item_service";
import type { PoolClient } from "@vestibule/shared/db";
import { fromConnectError, knownError } from "@vestibule/shared/errors";
import { createServiceClient } from "@vestibule/shared/rpc";
import { peerUrl, type ServiceContext } from "@vestibule/shared/service";
import { isPeerError } from "./peers.ts";
import { memberStore } from "./store/member-store.ts";

/** The billing item that limits how many members (dashboard admins) a team of the `internal` project may have. */
export const DASHBOARD_ADMINS_ITEM = "dashboard_admins";
export const DASHBOARD_PROJECT_ID = "internal";

export function createBillingItemsClient(ctx: Pick<ServiceContext, "env" | "config">): Client<typeof ItemService> {
  return createServiceClient(ItemService, { baseUrl: peerUrl("billing", ctx.env), caller: "teams_permissions", secret: ctx.config.serviceSecret });
}

/**
 * The `dashboard_admins` quantity of a team of the `internal` project (contract endpoints.md, `POST
 * /team-invitations/accept`), or null when nothing limits it (another project, or the item not configured there).
 *
 * Asked of billing over Connect at each accept rather than kept as a projection of billing.* events: billing owns
 * the quantity (ledger, purchases, include-by-default products), and a synchronous read sees every committed change at
 * once, so an operator who has just raised (or lowered) a team's quantity, or a customer who has just bought seats,
 * gets an accept that honours it; a projection would lag behind the outbox relay by an unknown time. Billing being
 * unreachable makes the accept fail (503) rather than let members in unchecked.
 */
export async function dashboardAdminsLimit(billing: Client<typeof ItemService>, projectId: string, teamId: string): Promise<number | null> {
  if (projectId !== DASHBOARD_PROJECT_ID) return null;
  try {
    const { quantity } = await billing.getItem({ projectId, customerType: "team", customerId: teamId, itemId: DASHBOARD_ADMINS_ITEM });
    return Number(quantity);
  } catch (err) {
    if (isPeerError(err, "ITEM_NOT_FOUND")) return null;
    throw fromConnectError(err) ?? err;
  }
}

/**
 * Refuses a new member beyond the limit. Called in the accept's transaction with the team row locked, so two accepts
 * into one team count each other's member; a user who is a member already adds nobody and passes (accept is idempotent).
 */
export async function checkDashboardAdmins(tx: PoolClient, limit: number | null, m: { projectId: string; teamId: string; userId: string }): Promise<void> {
  if (limit === null) return;
  if (await memberStore.get(tx, m.projectId, m.teamId, m.userId)) return;
  const members = await memberStore.count(tx, m.teamId);
  if (members + 1 > limit) throw knownError("ITEM_QUANTITY_INSUFFICIENT_AMOUNT", { item_id: DASHBOARD_ADMINS_ITEM, customer_id: m.teamId, quantity: 1 });
}
