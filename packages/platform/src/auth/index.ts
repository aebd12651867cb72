export { bearerToken, sameSecret } from "./secret-token.js";
