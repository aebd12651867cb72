export { environmentUsage, parseCommandLine } from "./command-line.js";
export { stopWhenLauncherExits } from "./launcher.js";
export { describeListening, INSTANCE_HEADER, ListenError, listenOn, type ListenSettings } from "./listen.js";
export { loadOrExit, onShutdownSignal } from "./shutdown.js";
