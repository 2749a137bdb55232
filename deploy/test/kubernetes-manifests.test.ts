/**
 * deploy/kubernetes renders offline (`kubectl kustomize`), every rendered object validates against the Kubernetes
 * schema of its kind (kubernetes-models, generated from the official OpenAPI), and the invariants hold: every process
 * kind has a Deployment with probes (gRPC for services, HTTP for gateway/frontends), requests and limits, a PDB and an
 * HPA; secrets never sit in a ConfigMap or a literal env value; images are pinned. Each invariant is also shown to
 * fail on a rendered copy broken on purpose.
 */
import { describe, expect, it } from "vitest";
import { invariantViolations, OVERLAYS, render, schemaErrors, type K8sObject } from "./kubernetes-manifests.ts";

const rendered = new Map(OVERLAYS.map((o) => [o, render(o)]));
const copy = (overlay: (typeof OVERLAYS)[number]): K8sObject[] => structuredClone(rendered.get(overlay)!);
const find = (objects: K8sObject[], kind: string, name: string): K8sObject => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`${kind}/${name} not rendered`);
  return found;
};
type Pod = { spec: { template: { spec: { containers: Record<string, unknown>[] } } } };
const container = (objects: K8sObject[], name: string): Record<string, unknown> =>
  (find(objects, "Deployment", name) as unknown as Pod).spec.template.spec.containers[0]!;

describe.each(OVERLAYS)("overlay %s", (overlay) => {
  const objects = rendered.get(overlay)!;

  it("renders every process kind, its Service, HPA, PDB, the migration Job, Ingress and NetworkPolicies", () => {
    const kinds = new Map<string, number>();
    for (const o of objects) kinds.set(o.kind, (kinds.get(o.kind) ?? 0) + 1);
    expect(kinds.get("Deployment")).toBe(8);
    expect(kinds.get("Service")).toBe(8);
    expect(kinds.get("HorizontalPodAutoscaler")).toBe(8);
    expect(kinds.get("PodDisruptionBudget")).toBe(8);
    expect(kinds.get("Job")).toBe(1);
    expect(kinds.get("Ingress")).toBe(1);
    expect(kinds.get("NetworkPolicy")).toBeGreaterThanOrEqual(5);
    expect(objects.every((o) => o.kind === "Namespace" || o.metadata.namespace === (overlay === "dev" ? "vestibule-dev" : "vestibule"))).toBe(true);
  });

  it("validates every object against the Kubernetes schema of its kind", async () => {
    expect(await schemaErrors(objects)).toEqual([]);
  });

  it("keeps every invariant", () => {
    expect(invariantViolations(objects)).toEqual([]);
  });
});

describe("the checks catch broken manifests", () => {
  it("schema validation rejects a wrong type and an unknown kind", async () => {
    const objects = copy("production");
    (find(objects, "Deployment", "gateway").spec as { replicas: unknown }).replicas = "two";
    objects.push({ apiVersion: "apps/v1", kind: "Deplyment", metadata: { name: "typo" } });
    const errors = await schemaErrors(objects);
    expect(errors).toContainEqual(expect.stringMatching(/^Deployment\/gateway: .*replicas must be integer/));
    expect(errors).toContainEqual(expect.stringMatching(/^Deplyment\/typo: no Kubernetes schema/));
  });

  it("a missing probe, a liveness probe that follows the database, a missing limit, a missing PDB, a secret in a ConfigMap and an unpinned image each fail", () => {
    const objects = copy("production");
    delete container(objects, "identity").readinessProbe;
    container(objects, "vault").startupProbe = { httpGet: { path: "/health", port: 8115 } };
    delete (container(objects, "email").resources as { limits?: unknown }).limits;
    objects.splice(objects.indexOf(find(objects, "PodDisruptionBudget", "billing")), 1);
    (find(objects, "ConfigMap", "vestibule").data as Record<string, string>).VESTIBULE_SERVICE_SECRET = "oops";
    container(objects, "gateway").image = "registry.example.com/vestibule:latest";
    container(objects, "frontends").image = "registry.example.com/vestibule";
    (container(objects, "auth").env as unknown[]).push({ name: "VESTIBULE_MASTER_KEYS", value: "k1:abc" });
    container(objects, "billing").livenessProbe = { grpc: { port: 8113 } };

    expect(invariantViolations(objects).sort()).toEqual(
      [
        "ConfigMap/vestibule: holds the secret VESTIBULE_SERVICE_SECRET (use a Secret)",
        "Deployment/auth: secret VESTIBULE_MASTER_KEYS given as a literal value",
        "Deployment/billing: no PodDisruptionBudget selects its pods",
        'Deployment/billing container billing: livenessProbe must ask for the "liveness" health service',
        "Deployment/email container email: no cpu/memory limits",
        'Deployment/frontends: image "registry.example.com/vestibule" is not pinned to a tag or digest (never latest)',
        'Deployment/gateway: image "registry.example.com/vestibule:latest" is not pinned to a tag or digest (never latest)',
        "Deployment/identity container identity: no readinessProbe",
        "Deployment/vault container vault: startupProbe of a service must be a gRPC health probe",
      ].sort(),
    );
  });

  it("a process kind without a Deployment and a missing migration Job fail", () => {
    const objects = copy("dev").filter((o) => !(o.kind === "Deployment" && o.metadata.name === "teams-permissions") && o.kind !== "Job");
    expect(invariantViolations(objects)).toEqual(expect.arrayContaining(["no Deployment for process kind teams-permissions", "no migration Job"]));
  });
});
