import { runMain } from "@vestibule/shared/service";
import { billingService } from "./server.ts";

await runMain(billingService);
