import { runMain } from "@vestibule/shared/service";
import { emailService } from "./server.ts";

await runMain(emailService);
