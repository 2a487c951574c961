"""The rule reference (rules.md, written by `promptlint docs`), installed as promptlint.docsdata: the page an editor links each finding to."""
