// @ts-check
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig(
  globalIgnores(["**/dist/", "**/node_modules/", "bench-results/", "coverage/", ".cache/"]),
  js.configs.recommended,
  tseslint.configs.recommended,
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
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      // A leading underscore marks a name kept on purpose: a key omitted by rest destructuring, or
      // `_next`, which Express needs to see a four-argument error handler.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true, argsIgnorePattern: "^_" }],
    },
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
