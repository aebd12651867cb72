import { spawn } from "node:child_process";

/**
 * `node run-while-parent-lives.js COMMAND [ARGS...]`: runs COMMAND until whoever started this
 * process closes its stdin (the kernel does, however the launcher ends, `kill -9` included), then
 * stops it with SIGTERM. npm start's private redis-server runs in a process group of its own, out of
 * reach of a terminal's Ctrl-C, and has no option to follow its parent: this process is that option.
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
