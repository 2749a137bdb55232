import { fork } from "node:child_process";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { UserService } from "@vestibule/proto/identity/v1/user_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { serviceTokenSource, SERVICE_TOKEN_HEADER } from "@vestibule/shared/rpc";
const child = fork(new URL("./rpc-server.ts", import.meta.url).pathname, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "pipe", "inherit", "ipc"] });
const { port } = await new Promise<{ port: number }>((res) => child.stdout!.once("data", (d) => res(JSON.parse(String(d)))));
const serverCpu = () => new Promise<number>((res) => { child.once("message", (m: any) => res(m.cpu)); child.send("cpu"); });
const baseUrl = `http://127.0.0.1:${port}`;
const token = serviceTokenSource("s3cret", "auth");
const auth = (next: any) => async (req: any) => { req.header.set(SERVICE_TOKEN_HEADER, token()); return next(req); };
const kinds: Record<string, any> = {
  grpc: createServiceClient(UserService, { baseUrl, caller: "auth", secret: "s3cret" }),
  connect: createClient(UserService, createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true, interceptors: [auth], acceptCompression: [], defaultTimeoutMs: 10000 })),
};
for (const round of [1, 2]) for (const [name, c] of Object.entries(kinds)) {
  for (let i = 0; i < 500; i++) await c.findUserByAuthEmail({ projectId: "p", email: "someone@example.com" });
  const n = 5000, conc = Number(process.env.CONC ?? 8);
  const s0 = await serverCpu(); const c0 = process.cpuUsage(); const t0 = Date.now();
  let k = 0;
  await Promise.all(Array.from({ length: conc }, async () => { while (k++ < n) await c.findUserByAuthEmail({ projectId: "p", email: "someone@example.com" }); }));
  const cc = process.cpuUsage(c0); const s1 = await serverCpu();
  console.log(`${name} round ${round}: ${(n / ((Date.now() - t0) / 1000)).toFixed(0)} calls/s, client ${((cc.user + cc.system) / 1000 / n).toFixed(3)} ms, server ${((s1 - s0) / n).toFixed(3)} ms CPU per call`);
}
child.kill();
process.exit(0);
