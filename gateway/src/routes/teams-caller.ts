import { AccessType, type Caller } from "@vestibule/proto/teams_permissions/v1/team";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { CallerSchema } from "@vestibule/proto/teams_permissions/v1/team";
import type { RequestAuth } from "../auth/request-auth.ts";

const ACCESS_TYPES = { client: AccessType.CLIENT, server: AccessType.SERVER, admin: AccessType.ADMIN } as const;

/**
 * Who asks, for the teams-permissions service: the request's access type (client callers are held to the contract's
 * team rules there), its signed-in user, and the project configuration version this gateway has seen (so the service
 * never answers from an older configuration than the caller knows).
 */
export function callerOf(auth: RequestAuth): MessageInitShape<typeof CallerSchema> {
  return { accessType: ACCESS_TYPES[auth.type], userId: auth.user?.id ?? "", knownConfigVersion: auth.project.project.version };
}

export type { Caller };
