import { runMain } from "@vestibule/shared/service";
import { identityService } from "./server.ts";

await runMain(identityService);
