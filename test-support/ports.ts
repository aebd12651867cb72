/** A loopback port nothing listens on (bound, then released): connections to it are refused. */
export { freePort as closedPort } from "@chorus/local-runtime";
