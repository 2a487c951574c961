"""Rule vocabularies (YAML), installed as promptlint.rulesdata."""
