import { runMain } from "@vestibule/shared/service";
import { analyticsService } from "./server.ts";

await runMain(analyticsService);
