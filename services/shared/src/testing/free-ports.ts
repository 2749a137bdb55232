/**
 * Free TCP ports for processes that will listen on them later (the test platform's children, the bench's private
 * platforms). A port from `listen(0)` comes from the kernel's ephemeral range, the same range every outgoing connection
 * takes its local port from: between choosing it and the child binding it, a connection to Postgres or NATS may take
 * it and the child fails with EADDRINUSE (seen in CI). So ports are chosen at random below the ephemeral range, where
 * the kernel hands out nothing by itself, and each is checked by binding it.
 */
import { once } from "node:events";
import { readFileSync } from "node:fs";
import net from "node:net";

/** Lowest port we choose from: above the registered well-known services most machines run (5432, 4222, 8xxx...). */
const LOWEST = 10_000;

/** The kernel's ephemeral range (Linux); elsewhere the IANA one. */
export function ephemeralPortRange(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return { low: low!, high: high! };
  } catch {
    // not Linux
  }
  return { low: 49_152, high: 65_535 };
}

/** Whether `port` can be bound on `host` right now (bound and released at once). */
async function canBind(port: number, host: string): Promise<net.Server | undefined> {
  const server = net.createServer();
  server.listen({ port, host, exclusive: true });
  try {
    await Promise.race([once(server, "listening"), once(server, "error").then(([err]) => Promise.reject(err))]);
    return server;
  } catch {
    server.close();
    return undefined;
  }
}

/** `count` distinct free ports on `host`, outside the ephemeral range, all held at once while choosing. */
export async function freePorts(count: number, host = "127.0.0.1"): Promise<number[]> {
  const { low } = ephemeralPortRange();
  const high = low - 1;
  const servers: net.Server[] = [];
  try {
    if (high - LOWEST < count * 50) throw new Error("no room below the ephemeral range");
    for (let tries = 0; servers.length < count && tries < count * 200; tries++) {
      const port = LOWEST + Math.floor(Math.random() * (high - LOWEST + 1));
      const server = await canBind(port, host);
      if (server) servers.push(server);
    }
    if (servers.length < count) throw new Error(`found ${servers.length} of ${count} free ports below ${low}`);
    return servers.map((s) => (s.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}
