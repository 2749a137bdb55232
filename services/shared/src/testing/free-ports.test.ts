import net from "node:net";
import { describe, expect, it } from "vitest";
import { ephemeralPortRange, freePorts } from "./free-ports.ts";

describe("freePorts", () => {
  it("hands out distinct bindable ports below the kernel's ephemeral range", async () => {
    const { low } = ephemeralPortRange();
    const ports = await freePorts(20);
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
      const server = net.createServer().listen(port, "127.0.0.1");
      await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
      await new Promise((r) => server.close(r));
    }
  });
});
