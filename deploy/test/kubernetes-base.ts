import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ScaledObject, TriggerAuthentication } from "@kubernetes-models/keda/keda.sh/v1alpha1";
import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Secret, Service, type IContainer } from "kubernetes-models/v1";
import { parseAllDocuments } from "yaml";

// The Kubernetes base (deploy/kubernetes) as `kubectl kustomize` builds it, and what the pods
// would see of it: the objects, typed through kubernetes-models, and each container's environment.

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BASE_DIR = "deploy/kubernetes";
export const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** Every kind the base may hold, each with the kubernetes-models class that validates it. */
export const MODELS = [
  ConfigMap,
  Secret,
  Service,
  Deployment,
  HorizontalPodAutoscaler,
  PodDisruptionBudget,
  ScaledObject,
  TriggerAuthentication,
] as const;
type ModelClass = (typeof MODELS)[number];

export interface BuiltObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

/** Runs `kubectl kustomize` on a base directory and parses the YAML stream it prints. */
export function kustomize(dir: string): BuiltObject[] {
  const result = spawnSync("kubectl", ["kustomize", join(ROOT, dir)], { encoding: "utf8" });
  if (result.error && (result.error as NodeJS.ErrnoException).code === "ENOENT")
    throw new Error("kubectl is not installed: apt-get install kubernetes-client (or any kubectl), as .ci/run does");
  if (result.status !== 0)
    throw new Error(`kubectl kustomize ${dir} failed: ${result.error?.message ?? result.stderr}`);
  const documents = parseAllDocuments(result.stdout);
  if (!Array.isArray(documents)) return [];
  const errors = documents.flatMap((d) => d.errors.map((e) => e.message));
  if (errors.length > 0) throw new Error(`kubectl kustomize ${dir} printed invalid YAML: ${errors.join("; ")}`);
  return documents.map((d) => d.toJS() as BuiltObject);
}

export const modelOf = (object: BuiltObject): ModelClass | undefined =>
  MODELS.find((m) => m.apiVersion === object.apiVersion && m.kind === object.kind);

/** The base's objects of one kind, as instances of its model (typed; `validate()` checks the schema). */
export function objectsOf<M extends ModelClass>(objects: BuiltObject[], model: M): InstanceType<M>[] {
  return objects
    .filter((o) => o.apiVersion === model.apiVersion && o.kind === model.kind)
    .map((o) => new model(o as never) as InstanceType<M>);
}

/** "500m" -> 0.5, "2" -> 2 (Kubernetes CPU quantities). */
export function cpuCores(quantity: string | number): number {
  const text = String(quantity);
  return text.endsWith("m") ? Number(text.slice(0, -1)) / 1000 : Number(text);
}

const BINARY_UNITS: Record<string, number> = { "": 1, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };

/** "1536Mi" -> bytes (the binary units this base uses). */
export function bytes(quantity: string | number): number {
  const match = /^(\d+)(Ki|Mi|Gi|Ti)?$/.exec(String(quantity));
  if (!match) throw new Error(`not a binary memory quantity: ${quantity}`);
  return Number(match[1]) * BINARY_UNITS[match[2] ?? ""]!;
}

const secretValues = (secret: Secret): Record<string, string> => ({
  ...Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]),
  ),
  ...secret.stringData,
});

function findByName<T extends { metadata?: { name?: string } }>(items: T[], name: string | undefined, what: string): T {
  const found = items.find((i) => i.metadata?.name === name);
  if (!found) throw new Error(`${what} ${name} is referenced but not in the base`);
  return found;
}

/**
 * The environment Kubernetes gives a container: envFrom first, then env, which wins. A reference
 * to a ConfigMap, Secret or key the base lacks throws (unless marked optional).
 */
export function containerEnv(
  objects: BuiltObject[],
  container: IContainer,
  podContainers: IContainer[],
): Record<string, string> {
  const configMaps = objectsOf(objects, ConfigMap);
  const secrets = objectsOf(objects, Secret);
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(env, findByName(configMaps, source.configMapRef.name, "ConfigMap").data);
    if (source.secretRef) Object.assign(env, secretValues(findByName(secrets, source.secretRef.name, "Secret")));
  }
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (variable.value !== undefined || !from) env[variable.name] = variable.value ?? "";
    else if (from.configMapKeyRef)
      setFromKey(
        env,
        variable.name,
        findByName(configMaps, from.configMapKeyRef.name, "ConfigMap").data,
        from.configMapKeyRef,
      );
    else if (from.secretKeyRef)
      setFromKey(
        env,
        variable.name,
        secretValues(findByName(secrets, from.secretKeyRef.name, "Secret")),
        from.secretKeyRef,
      );
    else if (from.resourceFieldRef)
      env[variable.name] = String(resourceField(podContainers, container, from.resourceFieldRef));
    else throw new Error(`${variable.name}: a valueFrom this check does not know`);
  }
  return env;
}

function setFromKey(
  env: Record<string, string>,
  name: string,
  values: Record<string, string> | undefined,
  ref: { key: string; name?: string; optional?: boolean },
) {
  const value = values?.[ref.key];
  if (value !== undefined) env[name] = value;
  else if (!ref.optional) throw new Error(`${name}: key ${ref.key} is not in ${ref.name}`);
}

/** The downward API's value of requests.cpu/limits.cpu (rounded up to the divisor, as the kubelet does). */
function resourceField(
  podContainers: IContainer[],
  self: IContainer,
  ref: { containerName?: string; resource: string; divisor?: string | number },
): number {
  const target = ref.containerName ? podContainers.find((c) => c.name === ref.containerName) : self;
  const [kind, resource] = ref.resource.split(".") as ["requests" | "limits", string];
  const quantity = target?.resources?.[kind]?.[resource];
  if (resource !== "cpu" || quantity === undefined)
    throw new Error(
      `resourceFieldRef ${ref.resource} of ${ref.containerName ?? self.name}: not a CPU the container sets`,
    );
  return Math.ceil(cpuCores(quantity) / cpuCores(ref.divisor ?? 1));
}
