import type { ConnectRouter } from "@connectrpc/connect";
import { AuditService } from "@vestibule/proto/audit/v1/audit_service";
import type { ServiceContext } from "@vestibule/shared/service";
import { createAuditService } from "./audit-service.ts";

/**
 * The audit-log capability of the identity service (`vestibule.audit.v1.AuditService`, see README.md here): its own
 * tables (`audit_entries`, `audit_heads`, migration 0009), no code shared with the rest of identity.
 */
export const auditServiceNames = [AuditService.typeName];

export function registerAudit(router: ConnectRouter, ctx: ServiceContext): void {
  router.service(AuditService, createAuditService(ctx));
}
