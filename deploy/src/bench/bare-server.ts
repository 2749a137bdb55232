import Fastify from "fastify";

/**
 * The practical ceiling of one Node HTTP hop on this machine: a fastify route that returns a small JSON object,
 * in its own process like the gateway. The benchmark measures it first and reports every figure relative to it.
 */
const app = Fastify({ logger: false });
app.get("/bare", async () => ({ id: "00000000-0000-4000-8000-000000000000", display_name: "bare", ok: true }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" });
const address = app.server.address();
process.stdout.write(`${JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 })}\n`);
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
