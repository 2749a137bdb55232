// CPU profiling on demand for a platform process (Node refuses --cpu-prof in NODE_OPTIONS, but not --import):
//   NODE_OPTIONS="--import /abs/path/deploy/src/bench/cpu-profile-hook.mjs" VESTIBULE_CPU_PROF_DIR=/tmp/prof
// The first SIGUSR2 starts the V8 profiler, the next one writes <dir>/<pid>.cpuprofile (open it in Chrome DevTools
// or read it with deploy/src/bench/profile-refresh.ts). Plain JavaScript: it runs before tsx is loaded.
import { Session } from "node:inspector";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.env.VESTIBULE_CPU_PROF_DIR || "/tmp";
const session = new Session();
session.connect();
let running = false;

process.on("SIGUSR2", () => {
  if (!running) {
    running = true;
    session.post("Profiler.enable", () => session.post("Profiler.setSamplingInterval", { interval: 200 }, () => session.post("Profiler.start")));
    return;
  }
  running = false;
  session.post("Profiler.stop", (err, result) => {
    if (!err) writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    session.post("Profiler.disable");
  });
});
