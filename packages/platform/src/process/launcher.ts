/**
 * `npm start` runs each gateway and worker in a process group of its own, so that a terminal's
 * Ctrl-C reaches only the launcher, which stops them in order. Outside the terminal's group they
 * would outlive a launcher killed with `kill -9`; the launcher therefore gives each an IPC channel,
 * which the kernel closes however the launcher ends. Its closing is taken as SIGTERM: the app's
 * shutdown handler runs, or, before one is installed (a worker still loading its model), the
 * process ends. Call first thing in `main`; without a launcher's channel it does nothing.
 */
export function stopWhenLauncherExits(): void {
  if (!process.connected) return;
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
  // The listener would otherwise keep the process alive by itself.
  process.channel?.unref();
}
