// printWidth: the code keeps long lines; of the widths tried (120-240), 197 rewrites the fewest lines.
/** @type {import("prettier").Config} */
export default { printWidth: 197 };
