import { runMain } from "@vestibule/shared/service";
import { authService } from "./server.ts";

await runMain(authService);
