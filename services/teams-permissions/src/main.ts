import { runMain } from "@vestibule/shared/service";
import { teamsPermissionsService } from "./server.ts";

await runMain(teamsPermissionsService);
