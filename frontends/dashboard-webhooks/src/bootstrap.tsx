/** Standalone development harness of this area (the dashboard shell loads ./Area instead). */
import { mountStandaloneArea } from "@vestibule/ui";
import Area from "./area.tsx";

void mountStandaloneArea(Area, "Webhooks");
