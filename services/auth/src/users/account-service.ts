import type { ServiceImpl } from "@connectrpc/connect";
import { AccountService } from "@vestibule/proto/auth/v1/account_service";
import { withTransaction } from "@vestibule/shared/db";
import type { AuthRuntime } from "../runtime.ts";
import { forgetDeletedUser } from "./user-events.ts";

/**
 * AccountService: user operations that change identity and auth together, so the gateway makes one call.
 *
 * DeleteAccount deletes the user in identity first (its errors, such as an unknown user, pass through unchanged), and
 * then, before answering, what auth holds of the user: a refresh token of a deleted user must not mint one more access
 * token after the caller has been told the user is gone. The identity event that follows repeats this idempotently.
 * Were auth's part to fail after identity's, the event still removes the sessions moments later; the failure is
 * reported to the caller, who may retry (identity then answers that the user does not exist).
 */
export function createAccountService(rt: AuthRuntime): ServiceImpl<typeof AccountService> {
  const { ctx, identity } = rt;
  return {
    async deleteAccount(req) {
      await identity.users.deleteUser({ projectId: req.projectId, userId: req.userId });
      const sessions = await withTransaction(ctx.pool, (tx) => forgetDeletedUser(ctx, tx, req.projectId, req.userId));
      ctx.log.info({ project_id: req.projectId, user_id: req.userId, sessions }, "deleted user's sessions and credentials removed");
      return {};
    },
  };
}
