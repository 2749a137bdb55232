/**
 * Rendering, schema validation and invariants of deploy/kubernetes (used by kubernetes-manifests.test.ts).
 * Rendering: `kubectl kustomize <overlay>` (offline). Schemas: the `kubernetes-models` package, whose validators are
 * generated from the official Kubernetes OpenAPI document (one model per apiVersion/kind).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { checkoutRoot } from "../src/paths.ts";

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
};

export const OVERLAYS = ["dev", "production"] as const;
export const PROCESS_KINDS = ["auth", "identity", "teams-permissions", "billing", "email", "vault", "gateway", "frontends"] as const;
const SERVICES = new Set(PROCESS_KINDS.slice(0, 6));

/** Environment names that hold secrets: never in a ConfigMap, never a literal `value:` in a pod spec. */
export const SECRET_NAME = /(SECRET|MASTER_KEYS|PASSWORD|DATABASE_URL|SMTP_URL|_TOKEN|PRIVATE_KEY)/;

export function render(overlay: string): K8sObject[] {
  let text: string;
  try {
    text = execFileSync("kubectl", ["kustomize", join(checkoutRoot, "deploy", "kubernetes", "overlays", overlay)], {
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") throw new Error("kubectl is not installed: the manifests are rendered with `kubectl kustomize`");
    throw err;
  }
  const objects = parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
  // kustomize folds long base64 Secret values over lines; the API server's base64 decoder skips the newlines, the
  // schema's "byte" format does not: join them as the server reads them.
  for (const o of objects) {
    if (o.kind !== "Secret" || !o.data) continue;
    o.data = Object.fromEntries(Object.entries(o.data as Record<string, string>).map(([k, v]) => [k, v.replace(/\s+/g, "")]));
  }
  return objects;
}

/** The kubernetes-models module of an object: "apps/v1" Deployment → kubernetes-models/apps/v1/Deployment. */
function modelPath(o: K8sObject): string {
  return `kubernetes-models/${o.apiVersion}/${o.kind}`;
}

/** Validates each object against the Kubernetes schema of its kind; returns "Kind/name: problem" lines. */
export async function schemaErrors(objects: readonly K8sObject[]): Promise<string[]> {
  const errors: string[] = [];
  for (const o of objects) {
    let Model: new (data: unknown) => { validate(): void };
    try {
      const mod = (await import(modelPath(o))) as Record<string, new (data: unknown) => { validate(): void }>;
      Model = mod[o.kind]!;
      if (!Model) throw new Error("no model");
    } catch {
      errors.push(`${o.kind}/${o.metadata?.name}: no Kubernetes schema for ${o.apiVersion} ${o.kind}`);
      continue;
    }
    try {
      new Model(o).validate();
    } catch (err) {
      errors.push(`${o.kind}/${o.metadata?.name}: ${(err as Error).message}`);
    }
  }
  return errors;
}

type Container = {
  name: string;
  image?: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  startupProbe?: Record<string, unknown>;
  readinessProbe?: Record<string, unknown>;
  livenessProbe?: Record<string, unknown>;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
};
type PodSpec = { containers: Container[]; securityContext?: { runAsNonRoot?: boolean } };

const podSpecOf = (o: K8sObject): PodSpec | undefined =>
  (o.spec as { template?: { spec?: PodSpec } } | undefined)?.template?.spec;
const podLabelsOf = (o: K8sObject): Record<string, string> =>
  (o.spec as { template?: { metadata?: { labels?: Record<string, string> } } }).template?.metadata?.labels ?? {};
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string>): boolean =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

function imagePinned(image: string | undefined): boolean {
  if (!image) return false;
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return true;
  const lastSegment = image.split("/").pop() ?? "";
  const tag = lastSegment.includes(":") ? lastSegment.split(":").pop() : undefined;
  return !!tag && tag !== "latest";
}

/** Every broken invariant as a readable line (empty = all hold). */
export function invariantViolations(objects: readonly K8sObject[]): string[] {
  const out: string[] = [];
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const deployments = byKind("Deployment");
  const pdbs = byKind("PodDisruptionBudget");
  const hpas = byKind("HorizontalPodAutoscaler");

  for (const kind of PROCESS_KINDS) {
    if (!deployments.some((d) => d.metadata.name === kind)) out.push(`no Deployment for process kind ${kind}`);
  }
  if (!byKind("Job").some((j) => (podSpecOf(j)?.containers ?? []).some((c) => JSON.stringify(c).includes('"migrate"')))) {
    out.push("no migration Job");
  }
  for (const d of deployments) {
    const name = d.metadata.name;
    const pod = podSpecOf(d);
    const labels = podLabelsOf(d);
    if (!pdbs.some((p) => matches((p.spec as { selector?: { matchLabels?: Record<string, string> } }).selector?.matchLabels, labels))) {
      out.push(`Deployment/${name}: no PodDisruptionBudget selects its pods`);
    }
    if (!hpas.some((h) => (h.spec as { scaleTargetRef?: { kind: string; name: string } }).scaleTargetRef?.name === name)) {
      out.push(`Deployment/${name}: no HorizontalPodAutoscaler`);
    }
    if (pod?.securityContext?.runAsNonRoot !== true) out.push(`Deployment/${name}: runAsNonRoot is not set`);
    for (const c of pod?.containers ?? []) {
      const where = `Deployment/${name} container ${c.name}`;
      for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"] as const) {
        if (!c[probe]) out.push(`${where}: no ${probe}`);
        else if (SERVICES.has(name as never) && !c[probe]!.grpc) out.push(`${where}: ${probe} of a service must be a gRPC health probe`);
        else if (!SERVICES.has(name as never) && !c[probe]!.httpGet) out.push(`${where}: ${probe} must be an HTTP probe`);
      }
      // A database outage makes services not ready; only the "liveness" health service keeps them from being restarted.
      const liveness = c.livenessProbe?.grpc as { service?: string } | undefined;
      if (SERVICES.has(name as never) && liveness && liveness.service !== "liveness") out.push(`${where}: livenessProbe must ask for the "liveness" health service`);
      if (!c.resources?.limits?.memory || !c.resources?.limits?.cpu) out.push(`${where}: no cpu/memory limits`);
      if (!c.resources?.requests?.memory || !c.resources?.requests?.cpu) out.push(`${where}: no cpu/memory requests`);
      if (c.securityContext?.readOnlyRootFilesystem !== true) out.push(`${where}: root filesystem not read-only`);
    }
  }
  for (const o of [...deployments, ...byKind("Job")]) {
    for (const c of podSpecOf(o)?.containers ?? []) {
      if (!imagePinned(c.image)) out.push(`${o.kind}/${o.metadata.name}: image "${c.image}" is not pinned to a tag or digest (never latest)`);
      for (const e of c.env ?? []) {
        if (SECRET_NAME.test(e.name) && e.value !== undefined) out.push(`${o.kind}/${o.metadata.name}: secret ${e.name} given as a literal value`);
      }
    }
  }
  for (const cm of byKind("ConfigMap")) {
    for (const key of Object.keys((cm.data as Record<string, string> | undefined) ?? {})) {
      if (SECRET_NAME.test(key)) out.push(`ConfigMap/${cm.metadata.name}: holds the secret ${key} (use a Secret)`);
    }
  }
  return out;
}
