/**
 * `npm run health`: a grpc_health_probe-style check of the six services.
 *
 *   npm run health                       every service; URLs from VESTIBULE_<NAME>_URL or the default ports
 *   npm run health -- --service identity one service (machine name, e.g. teams_permissions)
 *   npm run health -- --timeout 2000     per-service deadline in ms (default 3000)
 *
 * Prints one line per service (`auth SERVING`, `billing NOT_SERVING`, `vault UNREACHABLE (ECONNREFUSED)`), one per
 * replica when the variable lists several (`auth SERVING (http://10.0.0.5:8110)`), and exits 0 only when every checked
 * replica is SERVING (1 otherwise, 2 on bad arguments).
 */
import { parseArgs } from "node:util";
import { replicaUrls } from "@vestibule/shared/rpc";
import { checkServiceHealth } from "./platform.ts";
import { SERVICE_NAMES, serviceUrl, type ServiceName } from "./services.ts";

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: npm run health -- [--service <${SERVICE_NAMES.join("|")}>] [--timeout <ms>]\n`);
  process.exit(2);
}

function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  const code = e.cause?.code ?? e.code;
  const text = typeof e.message === "string" ? e.message.replace(/^\[[a-z_]+\] /, "") : String(err);
  return typeof code === "string" ? code : text;
}

async function main(): Promise<void> {
  let values: { service?: string; timeout?: string };
  try {
    ({ values } = parseArgs({
      options: { service: { type: "string", short: "s" }, timeout: { type: "string", short: "t" } },
      allowPositionals: false,
    }));
  } catch (err) {
    usage((err as Error).message);
  }
  const timeoutMs = values.timeout === undefined ? 3_000 : Number(values.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) usage(`--timeout must be a positive integer (ms), got "${values.timeout}"`);
  let names: ServiceName[] = SERVICE_NAMES;
  if (values.service !== undefined) {
    const wanted = values.service.replaceAll("-", "_") as ServiceName;
    if (!SERVICE_NAMES.includes(wanted)) usage(`unknown service "${values.service}"`);
    names = [wanted];
  }

  // A variable that lists replicas (comma-separated) gets one line per replica, its URL after the status.
  const checks = names.flatMap((name) => {
    const urls = replicaUrls(serviceUrl(name));
    return urls.map((url) => ({ name, url, label: urls.length > 1 ? ` (${url})` : "" }));
  });
  const results = await Promise.all(
    checks.map(async ({ name, url, label }) => {
      try {
        const { status, serving } = await checkServiceHealth(url, timeoutMs);
        return { name, serving, line: `${name} ${status}${label}` };
      } catch (err) {
        return { name, serving: false, line: `${name} UNREACHABLE (${url}: ${describe(err)})` };
      }
    }),
  );
  for (const r of results) process.stdout.write(`${r.line}\n`);
  process.exit(results.every((r) => r.serving) ? 0 : 1);
}

void main();
