// @ts-check
/**
 * The house's own lint rules (eslint.config.js loads them as the `house` plugin).
 * `no-issue-references`: history (which of our issues asked for what) belongs in git and the
 * CHANGELOG, so no comment or string in source names one by number (the word, a space, digits). An
 * upstream project's issue, cited with its `#` ("express-rate-limit's issue #309"), says why.
 */

const ISSUE_REFERENCE = /\bissues?\s+\d+/i;

/** @type {import("eslint").Rule.RuleModule} */
const noIssueReferences = {
  meta: {
    type: "suggestion",
    docs: { description: "no issue numbers in comments or strings: history belongs in git and the CHANGELOG" },
    messages: {
      reference: "'{{text}}' names an issue: say why the code is as it is now; history goes in the CHANGELOG.",
    },
    schema: [],
  },
  create(context) {
    const report = (
      /** @type {import("estree").Node | import("estree").Comment} */ node,
      /** @type {string} */ text,
    ) => {
      const match = ISSUE_REFERENCE.exec(text);
      if (match)
        context.report({
          loc: node.loc ?? { line: 1, column: 0 },
          messageId: "reference",
          data: { text: match[0].trim() },
        });
    };
    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments()) report(comment, comment.value);
      },
      Literal(node) {
        if (typeof node.value === "string") report(node, node.value);
      },
      TemplateElement(node) {
        report(node, node.value.raw);
      },
    };
  },
};

export default { meta: { name: "house" }, rules: { "no-issue-references": noIssueReferences } };
