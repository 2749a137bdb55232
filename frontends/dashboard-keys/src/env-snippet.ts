/**
 * The `.env` lines of a newly created key set for the app's framework, with the variable names the SDK reads
 * (@vestibule/js env.ts, the published SDK's names): Next.js reads NEXT_PUBLIC_* in the browser and the rest on the
 * server; a Node.js server reads STACK_*; a Vite app exposes only VITE_* to its code, which passes them to the SDK
 * (and has no server to keep a secret key on, so none is written).
 */
export const FRAMEWORKS = [
  { value: "nextjs", label: "Next.js" },
  { value: "node", label: "Node.js server" },
  { value: "vite", label: "Vite (React)" },
] as const;

export type Framework = (typeof FRAMEWORKS)[number]["value"];

export interface EnvSnippetKeys {
  readonly projectId: string;
  /** The API's base URL (the gateway), when known. */
  readonly apiUrl: string | null;
  readonly publishableClientKey?: string | null;
  readonly secretServerKey?: string | null;
  readonly superSecretAdminKey?: string | null;
}

export function envSnippet(framework: Framework, keys: EnvSnippetKeys): string {
  const prefix = framework === "nextjs" ? "NEXT_PUBLIC_STACK_" : framework === "vite" ? "VITE_STACK_" : "STACK_";
  const lines: string[] = [];
  if (keys.apiUrl) lines.push(`${prefix}API_URL=${keys.apiUrl}`);
  lines.push(`${prefix}PROJECT_ID=${keys.projectId}`);
  if (keys.publishableClientKey) lines.push(`${prefix}PUBLISHABLE_CLIENT_KEY=${keys.publishableClientKey}`);
  if (framework === "vite") {
    if (keys.secretServerKey || keys.superSecretAdminKey) lines.push("# Secret keys belong on a server, never in a browser bundle: keep them out of this file.");
  } else {
    if (keys.secretServerKey) lines.push(`STACK_SECRET_SERVER_KEY=${keys.secretServerKey}`);
    if (keys.superSecretAdminKey) lines.push(`STACK_SUPER_SECRET_ADMIN_KEY=${keys.superSecretAdminKey}`);
  }
  return `${lines.join("\n")}\n`;
}
