// @ts-check
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import globals from "globals";
import importX from "eslint-plugin-import-x";
import stylistic from "@stylistic/eslint-plugin";
import tseslint from "typescript-eslint";
import house from "./tools/eslint/house-rules.js";

/** The npm workspaces (package.json), each with its own dependencies. */
const WORKSPACES = [
  "apps/cli",
  "apps/gateway",
  "apps/worker",
  "packages/audio",
  "packages/client",
  "packages/contracts",
  "packages/local-runtime",
  "packages/platform",
  "bench",
];

export default defineConfig(
  globalIgnores(["**/dist/", "**/node_modules/", "bench-results/", "coverage/", ".cache/"]),
  js.configs.recommended,
  // The type-checked rules, for the TypeScript files only: the plain JS (the playground's browser
  // modules, jest's CommonJS reporters, the tools' configs) has no type information.
  { files: ["**/*.ts"], extends: [tseslint.configs.recommendedTypeChecked] },
  { files: ["**/*.{js,cjs,mjs}"], extends: [tseslint.configs.recommended] },
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  {
    files: ["**/*.ts"],
    languageOptions: {
      // One program over every TypeScript file (tsconfig.eslint.json), for the rules that need types;
      // not projectService, which finds only the workspaces' tsconfig.json files, and those leave tests out.
      parserOptions: { project: "./tsconfig.eslint.json", tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Beyond the preset: a switch over a union names each of its members.
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      // A leading underscore marks a name kept on purpose: a key omitted by rest destructuring, or
      // `_next`, which Express needs to see a four-argument error handler.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true, argsIgnorePattern: "^_" }],
    },
  },
  ...dependencyRules(),
  ...workspaceBoundaries(),
  lineWidth(),
  luaInFiles(),
  {
    // No import cycles: a module that needs a helper of the module that imports it gets the helper
    // moved out. Relative imports are written with .js and resolved to the .ts beside them.
    files: ["**/*.ts"],
    settings: {
      "import-x/resolver-next": [importX.createNodeResolver({ extensionAlias: { ".js": [".ts", ".js"] } })],
      // The imported modules are TypeScript too: read them with the same parser, or no-cycle sees nothing.
      "import-x/extensions": [".ts", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
    },
    rules: { "import-x/no-cycle": "error" },
  },
  {
    // History belongs in git and the CHANGELOG: no issue numbers in the source's comments or strings.
    files: ["**/*.{ts,js,cjs,mjs}"],
    plugins: { house },
    rules: { "house/no-issue-references": "error" },
  },
  {
    // The playground's ES modules, which the gateway serves to browsers as they are.
    files: ["apps/gateway/public/**/*.js"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs" },
    // CommonJS (jest's reporters): require() is how such a file imports; there is no import statement.
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);

/**
 * Each workspace imports only what its own package.json declares (its image installs just that);
 * its tests may also use the root's devDependencies (jest, supertest...). Code outside the workspaces
 * (test-support, examples' and deploy's tests, tools) is dev tooling: the root's.
 */
function dependencyRules() {
  const tests = ["**/test/**", "**/*.test.ts", "**/*.test-helpers.ts", "**/*.contract.ts"];
  const rule = (packageDir, devDependencies) => ({
    "import-x/no-extraneous-dependencies": ["error", { packageDir, devDependencies }],
  });
  return [
    { files: ["**/*.ts"], plugins: { "import-x": importX }, rules: rule([import.meta.dirname], true) },
    ...WORKSPACES.flatMap((dir) => [
      { files: [`${dir}/**/*.ts`], ignores: tests, rules: rule([`${import.meta.dirname}/${dir}`], false) },
      {
        files: tests.map((glob) => `${dir}/${glob}`),
        rules: rule([`${import.meta.dirname}/${dir}`, import.meta.dirname], true),
      },
    ]),
  ];
}

/**
 * No code reaches into another workspace's files by relative path (its src/ or dist/): it imports the
 * package by name (its package.json `exports` say what it offers), or, for a workspace's tests, goes
 * through test-support. Holds for the workspaces and for the code between them (test-support, the
 * deployment and example tests).
 */
function workspaceBoundaries() {
  const names = ["cli", "gateway", "worker", "contracts", "platform", "client", "local-runtime", "audio", "bench"];
  const message = "Another workspace's files: import its package by name, or (tests) go through test-support.";
  const relative = (others) => ({ regex: `^(\\.\\./)+(apps/|packages/)?(${others})/`, message });
  // The layers: a package never imports an app; the gateway never imports the worker (its tests wire
  // one in through test-support/worker.ts).
  const layered = {
    packages: { regex: "^@chorus/(gateway|worker|cli|bench)(/|$)", message: "A package does not import an app." },
    "apps/gateway": {
      regex: "^@chorus/worker(/|$)",
      message: "The gateway's code and tests reach the worker through test-support.",
    },
  };
  const inWorkspaces = WORKSPACES.map((dir) => {
    const others = names.filter((name) => !dir.endsWith(`/${name}`) && dir !== name).join("|");
    const layer = layered[dir] ?? (dir.startsWith("packages/") ? layered.packages : undefined);
    const patterns = [relative(others), ...(layer ? [layer] : [])];
    return { files: [`${dir}/**/*.ts`], rules: { "no-restricted-imports": ["error", { patterns }] } };
  });
  const between = {
    files: ["test-support/**/*.ts", "deploy/**/*.ts", "examples/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ regex: "^(\\.\\./)+(apps|packages|bench)/", message }] }],
    },
  };
  return [...inWorkspaces, between];
}

/**
 * Lines of at most 120 characters (prettier's printWidth wraps the code; this keeps comments within
 * it). String and template literals and regular expressions are exempt: a message, a test's name or
 * an OpenAPI description broken in two could no longer be found by a search.
 */
function lineWidth() {
  const options = {
    code: 120,
    ignoreStrings: true,
    ignoreTemplateLiterals: true,
    ignoreRegExpLiterals: true,
    ignoreUrls: true,
  };
  return { plugins: { "@stylistic": stylistic }, rules: { "@stylistic/max-len": ["error", options] } };
}

/**
 * Lua lives in files (each workspace's src/lua/, defined with defineLuaScripts of @chorus/platform/redis),
 * never in a string or template literal, where it has no header of its KEYS and ARGV, no includes and
 * no Lua syntax for its reader.
 */
function luaInFiles() {
  const message = "Lua in a string: write the script as a file in this workspace's src/lua/ (defineLuaScripts).";
  const lua = "/redis\\.p?call\\s*\\(/";
  return {
    files: ["**/*.{ts,js,cjs,mjs}"],
    rules: {
      "no-restricted-syntax": [
        "error",
        { selector: `Literal[value=${lua}]`, message },
        { selector: `TemplateElement[value.raw=${lua}]`, message },
      ],
    },
  };
}
