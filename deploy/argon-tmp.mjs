import { hash, verify } from "@node-rs/argon2";
import { readFileSync } from "node:fs";
const opts = { memoryCost: 19456, timeCost: 2, parallelism: 1 };
const stored = await hash("pw", opts);
const faults = () => { const f = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" "); return { min: +f[7], maj: +f[9] }; };
for (const n of (process.argv[2] ?? "1,2,4").split(",").map(Number)) {
  const end = Date.now() + 4000; let c = 0;
  const c0 = process.cpuUsage(); const f0 = faults(); const t0 = Date.now();
  await Promise.all(Array.from({ length: n }, async () => { while (Date.now() < end) { await verify(stored, "pw"); c++; } }));
  const cu = process.cpuUsage(c0); const s = (Date.now() - t0) / 1000; const f1 = faults();
  console.log(`${n} in flight: ${(c / s).toFixed(1)}/s, user ${(cu.user / 1000 / c).toFixed(2)} sys ${(cu.system / 1000 / c).toFixed(2)} ms/verify, minor faults/verify ${((f1.min - f0.min) / c).toFixed(0)}`);
}
