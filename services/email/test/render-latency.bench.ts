/**
 * Render latency of the e-mail renderer's pool (issue 18, render isolation): time to the first render of a fresh pool
 * and the per-render latency of a small template in a theme, one at a time and 4 at once, after a warm-up.
 * `node --import tsx services/email/test/render-latency.bench.ts` (not part of `npm test`).
 */
import { createLogger } from "@vestibule/shared/log";
import { EmailRenderer } from "../src/render/renderer.ts";

const THEME = `import { Html, Head, Body, Container } from "@vestibule/emails";
export function EmailTheme({ children }) { return <Html><Head /><Body><Container>{children}</Container></Body></Html>; }`;
const TEMPLATE = `import { Subject, Text, Button } from "@vestibule/emails";
export function EmailTemplate({ user, variables }) {
  return <><Subject value="Verify your e-mail" /><Text>Hi {user.displayName}, your code is {variables.otp}</Text><Button href={variables.link}>Verify</Button></>;
}`;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

const started = performance.now();
const renderer = new EmailRenderer({ workers: 2, timeoutMs: 1500, memoryMb: 64, log: createLogger({ service: "bench", level: "silent" }) });
const render = () =>
  renderer.render({ user: { displayName: "Ada" }, project: { displayName: "Acme" }, templateSource: TEMPLATE, themeSource: THEME, variables: { otp: "123456", link: "https://x.example/v" } });
await render();
const first = performance.now() - started;
for (let i = 0; i < 20; i++) await render();
const sequential: number[] = [];
for (let i = 0; i < 200; i++) {
  const t = performance.now();
  await render();
  sequential.push(performance.now() - t);
}
const t = performance.now();
await Promise.all(Array.from({ length: 200 }, render));
const concurrentEach = (performance.now() - t) / 200;
await renderer.close();
console.log(
  JSON.stringify({
    firstRenderMs: Math.round(first),
    sequentialP50Ms: +pct(sequential, 50).toFixed(2),
    sequentialP95Ms: +pct(sequential, 95).toFixed(2),
    throughputMsPerRender: +concurrentEach.toFixed(2),
  }),
);
