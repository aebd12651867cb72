import { spawn } from "node:child_process";

/**
 * `node run-while-parent-lives.js COMMAND [ARGS...]`: runs COMMAND until whoever started this
 * process closes its stdin, then stops COMMAND with SIGTERM and exits with its status.
 *
 * `npm start` runs its private redis-server in a process group of its own, so that a terminal's
 * Ctrl-C does not kill Redis before the gateways and workers that still write to it; the launcher
 * stops Redis itself, last. A program outside the terminal's group outlives a launcher killed with
 * `kill -9`, and redis-server has no option to follow its parent: this process is that option.
 * The kernel closes the launcher's end of the stdin pipe however the launcher ends.
 */
const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write("usage: node run-while-parent-lives.js COMMAND [ARGS...]\n");
  process.exit(2);
}

const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"] });
const stop = () => {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
};
child.once("error", (error) => {
  process.stderr.write(`could not start ${command}: ${error.message}\n`);
  process.exit(127);
});
child.once("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));

process.stdin.once("close", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.on("SIGHUP", stop);
