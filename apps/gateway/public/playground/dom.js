// @ts-check
// The page's elements, looked up as the class they are. index.html guarantees every one the modules
// use: one that is missing, or of another kind, is a mistake in the page, reported at once by name.

/**
 * `node` as a `type`, or an error saying which element (`what`) the page lacks.
 * @template {Node} T
 * @param {Node | null | undefined} node
 * @param {{ new (): T; prototype: T }} type
 * @param {string} what
 * @returns {T}
 */
export function expectElement(node, type, what) {
  if (node instanceof type) return node;
  throw new Error(`the playground's ${what} is missing or not an ${type.name}`);
}

/**
 * The element of the page with `id`.
 * @template {Node} T
 * @param {string} id
 * @param {{ new (): T; prototype: T }} type
 * @returns {T}
 */
export const byId = (id, type) => expectElement(document.getElementById(id), type, `#${id}`);

/**
 * The first element in `root` that `selector` matches.
 * @template {Node} T
 * @param {ParentNode} root
 * @param {string} selector
 * @param {{ new (): T; prototype: T }} type
 * @returns {T}
 */
export const find = (root, selector, type) => expectElement(root.querySelector(selector), type, selector);
