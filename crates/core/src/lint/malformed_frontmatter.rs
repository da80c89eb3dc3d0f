//! `malformed-frontmatter`: a frontmatter block that is not valid YAML, or not a mapping of
//! properties, so Obsidian reads no properties from it at all; or one nested past
//! `frontmatter::MAX_NESTING` or over `parse::MAX_FRONTMATTER_BYTES`, whose properties and
//! property links vaultlink does not read.

use super::{frontmatter_findings, Context, Example, Findings, Rule};

pub const RULE: Rule = Rule {
    kind: crate::rule_names::MALFORMED_FRONTMATTER.kind,
    code: crate::rule_names::MALFORMED_FRONTMATTER.code,
    summary: "Frontmatter that is not valid YAML or not a mapping, so the note has no properties, or that nests too deep or is too large to be read.",
    examples: &[
        Example {
            name: "a bad indent and a list",
            vault: "//- A.md\n---\ntitle: x\n  bad: : y\n---\n//- B.md\n---\n- a\n- b\n---\n//- C.md\n---\nok: 1\n---\n",
            expected: &["malformed_frontmatter A.md:1", "malformed_frontmatter B.md:1"],
        },
        Example { name: "an empty block is fine", vault: "//- A.md\n---\n---\ntext\n", expected: &[] },
        Example {
            name: "nested past the bound",
            vault: "//- A.md\n---\nk: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n---\n",
            expected: &["malformed_frontmatter A.md:1"],
        },
    ],
    check,
};

fn check(context: &Context<'_>, findings: &mut Findings) {
    frontmatter_findings(
        context,
        findings,
        &["malformed_frontmatter", "frontmatter_not_a_mapping"],
        RULE.kind,
        "Fix the YAML between the `---` lines (each property as `key: value`, strings with `:` or `#` in quotes) so that Obsidian reads its properties.",
    );
    frontmatter_findings(
        context,
        findings,
        &["frontmatter_too_deep"],
        RULE.kind,
        "Flatten the frontmatter (a property holds text, a number, a date or a list; nested structure belongs in the body) so that its properties are read.",
    );
    frontmatter_findings(
        context,
        findings,
        &["frontmatter_too_large"],
        RULE.kind,
        "Move the long text out of the frontmatter into the body, or shorten it, so that its properties are read.",
    );
}
