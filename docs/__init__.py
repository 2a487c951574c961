"""The rule reference (rules/, a page a rule, written by `promptlint docs`), installed as promptlint.docsdata: the pages an editor links each finding to."""
