import { runMain } from "@vestibule/shared/service";
import { vaultService } from "./server.ts";

await runMain(vaultService);
