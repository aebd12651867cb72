// printWidth 120: what a reader's editor and a side-by-side diff show without wrapping. Comments are
// kept within it by the lint gate (@stylistic/max-len); long string literals (test names, messages,
// the OpenAPI descriptions) are exempt there, since breaking them would hide them from a search.
/** @type {import("prettier").Config} */
export default { printWidth: 120 };
