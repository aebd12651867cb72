import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "@jest/globals";
import { parse as parseYaml } from "yaml";
import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { Service, type IContainer } from "kubernetes-models/v1";
import { GATEWAY_ENV, loadGatewayConfig } from "@chorus/gateway";
import { loadWorkerConfig, WORKER_ENV } from "@chorus/worker";
import {
  BASE_DIR,
  bytes,
  containerEnv,
  cpuCores,
  kustomize,
  modelOf,
  objectsOf,
  read,
  ROOT,
  type BuiltObject,
} from "./kubernetes-base.js";

// Static checks of the Kubernetes base: it builds with kubectl's kustomize, every object is valid
// against its schema (kubernetes-models), and the objects agree with each other and with the apps
// (ports, probe paths, settings, drain times). No cluster needed.

const objects = kustomize(BASE_DIR);
const deployments = objectsOf(objects, Deployment);

const APPS = {
  gateway: {
    schema: GATEWAY_ENV,
    load: loadGatewayConfig,
    port: (env: Record<string, string>) => loadGatewayConfig(env).PORT,
  },
  worker: {
    schema: WORKER_ENV,
    load: loadWorkerConfig,
    port: (env: Record<string, string>) => loadWorkerConfig(env).WORKER_HTTP_PORT,
  },
} as const;
type App = keyof typeof APPS;
const APP_NAMES = Object.keys(APPS) as App[];

const deploymentOf = (app: App) =>
  deployments.find((d) => d.metadata?.labels?.["app.kubernetes.io/component"] === app)!;
const podSpec = (app: App) => deploymentOf(app).spec!.template.spec!;
const mainContainer = (app: App) => podSpec(app).containers.find((c) => c.name === app)!;
const envOf = (app: App, container = mainContainer(app)) => containerEnv(objects, container, podSpec(app).containers);
const selects = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  Object.keys(selector ?? {}).length > 0 && Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);
const podsSelectedBy = (selector: Record<string, string> | undefined) =>
  deployments.filter((d) => selects(selector, d.spec?.template.metadata?.labels));
const idOf = (object: BuiltObject) => `${object.kind}/${object.metadata.name}`;
const portNumber = (container: IContainer, port: string | number | undefined) =>
  typeof port === "number" ? port : container.ports?.find((p) => p.name === port)?.containerPort;

/** The hard limit of an app's SIGTERM drain (the timeout its main.ts gives onShutdownSignal), in seconds. */
function drainSeconds(app: App): number {
  const match = /onShutdownSignal\(logger, ([\d_]+),/.exec(read(`apps/${app}/src/main.ts`));
  if (!match) throw new Error(`no onShutdownSignal(logger, <ms>, ...) in apps/${app}/src/main.ts`);
  return Number(match[1]!.replace(/_/g, "")) / 1000;
}

describe("the Kubernetes base", () => {
  it("when kustomize builds it, then every manifest in the directory is a resource of kustomization.yaml", () => {
    const listed = (parseYaml(read(`${BASE_DIR}/kustomization.yaml`)) as { resources: string[] }).resources;
    const manifests = readdirSync(join(ROOT, BASE_DIR)).filter(
      (f) => f.endsWith(".yaml") && f !== "kustomization.yaml",
    );
    expect([...listed].sort()).toEqual(manifests.sort());
    expect(objects.length).toBeGreaterThan(0);
  });

  it("when built, then every object is of a kind with a model, and valid against that kind's schema", () => {
    expect(objects.filter((o) => !modelOf(o)).map(idOf)).toEqual([]);
    const invalid = objects.flatMap((object) => {
      try {
        new (modelOf(object)!)(object as never).validate();
        return [];
      } catch (error) {
        return [`${idOf(object)}: ${String(error)}`];
      }
    });
    expect(invalid).toEqual([]);
  });

  it("when labelled, then every object is part of chorus and each Deployment selects its own template's pods", () => {
    for (const object of objects)
      expect(object.metadata.labels).toEqual(
        expect.objectContaining({ "app.kubernetes.io/name": "chorus", "app.kubernetes.io/part-of": "chorus" }),
      );
    expect(deployments.map((d) => d.metadata?.labels?.["app.kubernetes.io/component"]).sort()).toEqual(APP_NAMES);
    for (const d of deployments) {
      expect(selects(d.spec?.selector.matchLabels, d.spec?.template.metadata?.labels)).toBe(true);
      expect(d.spec?.replicas).toBeUndefined(); // the autoscalers own the count
    }
  });

  it("when a Service or PodDisruptionBudget selects pods, then exactly one Deployment's, on a port its container names", () => {
    const services = objectsOf(objects, Service);
    const selectedBy = (selector: Record<string, string> | undefined) =>
      podsSelectedBy(selector).map((d) => d.metadata?.name);
    expect(services.map((s) => [s.metadata?.name, selectedBy(s.spec?.selector)])).toEqual([
      ["chorus-gateway", ["chorus-gateway"]],
      ["chorus-worker", ["chorus-worker"]],
    ]);
    for (const service of services) {
      const container = podsSelectedBy(service.spec?.selector)[0]!.spec!.template.spec!.containers[0]!;
      for (const port of service.spec?.ports ?? []) expect(portNumber(container, port.targetPort)).toBeDefined();
    }
    const budgets = objectsOf(objects, PodDisruptionBudget);
    expect(budgets.map((b) => [b.metadata?.name, selectedBy(b.spec?.selector?.matchLabels)])).toEqual([
      ["chorus-gateway", ["chorus-gateway"]],
      ["chorus-worker", ["chorus-worker"]],
    ]);
  });

  it.each(APP_NAMES)(
    "when the %s's settings are resolved from ConfigMaps and Secret, then the app's own config schema accepts them, every name known",
    (app) => {
      const containers = [...(podSpec(app).initContainers ?? []), mainContainer(app)];
      for (const container of containers) {
        const env = envOf(app, container);
        expect(Object.keys(env).filter((name) => !(name in APPS[app].schema))).toEqual([]);
        expect(() => APPS[app].load(env)).not.toThrow();
      }
    },
  );

  it.each(APP_NAMES)(
    "when the %s is probed, then readiness asks /readyz and liveness /healthz on the port the app listens on",
    (app) => {
      const container = mainContainer(app);
      const listens = APPS[app].port(envOf(app));
      expect(container.ports?.map((p) => p.containerPort)).toEqual([listens]);
      expect(container.readinessProbe?.httpGet?.path).toBe("/readyz");
      expect(container.livenessProbe?.httpGet?.path).toBe("/healthz");
      for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe].filter(
        (p) => p !== undefined,
      )) {
        expect(portNumber(container, probe.httpGet?.port)).toBe(listens);
      }
    },
  );

  it.each(APP_NAMES)(
    "when Prometheus discovers the %s's pods, then the scrape annotations point at /metrics on the app's port",
    (app) => {
      const annotations = deploymentOf(app).spec?.template.metadata?.annotations;
      expect(annotations).toEqual({
        "prometheus.io/scrape": "true",
        "prometheus.io/port": String(APPS[app].port(envOf(app))),
        "prometheus.io/path": "/metrics",
      });
    },
  );

  it("when the gateway is stopped, then preStop outlasts endpoint removal and the grace period covers it plus the gateway's drain", () => {
    const command = mainContainer("gateway").lifecycle?.preStop?.exec?.command ?? [];
    expect(command[0]).toBe("sleep");
    const preStop = Number(command[1]);
    expect(preStop).toBeGreaterThanOrEqual(5);
    expect(podSpec("gateway").terminationGracePeriodSeconds).toBeGreaterThanOrEqual(preStop + drainSeconds("gateway"));
  });

  it("when a worker is stopped, then the grace period covers its drain limit, and no preStop delays it (it gets no traffic)", () => {
    expect(mainContainer("worker").lifecycle?.preStop).toBeUndefined();
    expect(podSpec("worker").terminationGracePeriodSeconds).toBeGreaterThanOrEqual(drainSeconds("worker") + 10);
  });

  it("when a worker runs llama.cpp, then LLM_THREADS is its whole-core CPU request, with headroom in the limit and memory for the model", () => {
    const container = mainContainer("worker");
    const env = envOf("worker");
    const requests = container.resources?.requests ?? {};
    expect(container.env?.find((e) => e.name === "LLM_THREADS")?.valueFrom?.resourceFieldRef).toEqual({
      containerName: "worker",
      resource: "requests.cpu",
      divisor: "1",
    });
    expect(Number(env.LLM_THREADS)).toBe(cpuCores(requests.cpu!));
    expect(cpuCores(container.resources?.limits?.cpu ?? 0)).toBeGreaterThan(cpuCores(requests.cpu!));
    expect(bytes(requests.memory!)).toBeGreaterThanOrEqual(bytes("1Gi"));
  });

  it("when any container is scheduled, then it has CPU and memory requests and limits, limits at least the requests", () => {
    for (const app of APP_NAMES) {
      for (const container of [...(podSpec(app).initContainers ?? []), ...podSpec(app).containers]) {
        const { requests = {}, limits = {} } = container.resources ?? {};
        expect(cpuCores(limits.cpu!)).toBeGreaterThanOrEqual(cpuCores(requests.cpu!));
        expect(bytes(limits.memory!)).toBeGreaterThanOrEqual(bytes(requests.memory!));
      }
    }
  });

  it("when any pod runs, then as the image's non-root uid, without a service-account token, every container read-only with no capabilities", () => {
    for (const app of APP_NAMES) {
      const spec = podSpec(app);
      expect(spec.securityContext).toEqual(
        expect.objectContaining({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: "RuntimeDefault" } }),
      );
      expect(spec.automountServiceAccountToken).toBe(false);
      for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
        expect(container.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        });
      }
    }
  });

  it("when a worker starts, then its init container downloads LLM_MODEL into the volume mounted at the worker's MODELS_DIR", () => {
    const [init] = podSpec("worker").initContainers ?? [];
    const workerEnv = envOf("worker");
    const initEnv = envOf("worker", init);
    expect(initEnv.LLM_MODEL).toBe(workerEnv.LLM_MODEL);
    expect(initEnv.MODELS_DIR).toBe(workerEnv.MODELS_DIR);
    expect(init?.command?.join(" ")).toMatch(
      /resolveModelFile\(process\.env\.LLM_MODEL, \{ directory: process\.env\.MODELS_DIR/,
    );
    const volumeAt = (c: IContainer | undefined) =>
      c?.volumeMounts?.find((m) => m.mountPath === workerEnv.MODELS_DIR)?.name;
    expect(volumeAt(init)).toBeDefined();
    expect(volumeAt(mainContainer("worker"))).toBe(volumeAt(init));
  });

  it("when gateways autoscale, then on CPU utilization of the gateway Deployment, whose container requests CPU, from at least 2 replicas", () => {
    const [hpa, ...more] = objectsOf(objects, HorizontalPodAutoscaler);
    expect(more).toEqual([]);
    expect(hpa?.spec?.scaleTargetRef).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: deploymentOf("gateway").metadata?.name,
    });
    expect(hpa?.spec?.metrics).toEqual([
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: expect.any(Number) } },
      },
    ]);
    expect(hpa?.spec?.minReplicas).toBeGreaterThanOrEqual(2);
    expect(cpuCores(mainContainer("gateway").resources?.requests?.cpu ?? 0)).toBeGreaterThan(0);
  });
});
